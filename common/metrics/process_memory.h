// What a service's memory is made of, for its /metrics page: resident
// memory split into anonymous and file-backed pages (/proc/self/status),
// and glibc malloc's bytes in use against the free bytes it holds
// (mallinfo2, summed over its arenas). Resident anonymous memory well above
// malloc's in-use bytes is freed memory that malloc keeps (or cannot give
// back); in-use bytes that keep rising are a leak. Every service serves
// these (metrics_endpoint.h), so a long run tells the two apart without a
// debugger.
#ifndef MMAPZERO_COMMON_METRICS_PROCESS_MEMORY_H_
#define MMAPZERO_COMMON_METRICS_PROCESS_MEMORY_H_

#include <prometheus/metric_family.h>

#include <cstdint>
#include <vector>

namespace mmapzero::metrics {

struct ProcessMemory {
  int64_t resident_bytes = 0;            // VmRSS
  int64_t resident_anonymous_bytes = 0;  // RssAnon
  int64_t resident_file_bytes = 0;       // RssFile (code, mapped files)
  int64_t malloc_in_use_bytes = 0;       // allocated, mmapped blocks included
  int64_t malloc_free_bytes = 0;         // free in the arenas, held or not
  int64_t threads = 0;
};

// This process's figures now; a field that cannot be read stays 0.
ProcessMemory ReadProcessMemory();

// process_resident_memory_bytes, mmapzero_resident_bytes{kind},
// mmapzero_malloc_bytes{state} and process_threads, as read now.
std::vector<prometheus::MetricFamily> ProcessMemoryFamilies();

}  // namespace mmapzero::metrics

#endif  // MMAPZERO_COMMON_METRICS_PROCESS_MEMORY_H_
