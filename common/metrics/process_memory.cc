#include "common/metrics/process_memory.h"

#include <malloc.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "common/metrics/scraped_family.h"

namespace mmapzero::metrics {

ProcessMemory ReadProcessMemory() {
  ProcessMemory memory;
  // /proc/self/status lines: "VmRSS:     123456 kB", "Threads:  23".
  const struct {
    absl::string_view key;
    int64_t* value;
    int64_t scale;
  } fields[] = {{"VmRSS:", &memory.resident_bytes, 1024},
                {"RssAnon:", &memory.resident_anonymous_bytes, 1024},
                {"RssFile:", &memory.resident_file_bytes, 1024},
                {"Threads:", &memory.threads, 1}};
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    for (const auto& field : fields) {
      if (absl::StartsWith(line, field.key)) {
        *field.value =
            std::strtoll(line.c_str() + field.key.size(), nullptr, 10) *
            field.scale;
      }
    }
  }
  const struct mallinfo2 info = mallinfo2();
  memory.malloc_in_use_bytes =
      static_cast<int64_t>(info.uordblks + info.hblkhd);
  memory.malloc_free_bytes = static_cast<int64_t>(info.fordblks);
  return memory;
}

std::vector<prometheus::MetricFamily> ProcessMemoryFamilies() {
  const ProcessMemory memory = ReadProcessMemory();
  std::vector<prometheus::MetricFamily> families;
  families.push_back(ScrapedFamily("process_resident_memory_bytes",
                                   "Resident memory of the process.",
                                   prometheus::MetricType::Gauge));
  AddSample(&families.back(), {}, memory.resident_bytes);
  families.push_back(ScrapedFamily(
      "mmapzero_resident_bytes",
      "Resident memory by kind: anonymous (heap, stacks) or file (code, "
      "mapped files).",
      prometheus::MetricType::Gauge));
  AddSample(&families.back(), {{"kind", "anonymous"}},
            memory.resident_anonymous_bytes);
  AddSample(&families.back(), {{"kind", "file"}}, memory.resident_file_bytes);
  families.push_back(ScrapedFamily(
      "mmapzero_malloc_bytes",
      "glibc malloc's bytes in use, and the free bytes its arenas hold "
      "(resident or given back with malloc_trim).",
      prometheus::MetricType::Gauge));
  AddSample(&families.back(), {{"state", "in_use"}},
            memory.malloc_in_use_bytes);
  AddSample(&families.back(), {{"state", "free"}}, memory.malloc_free_bytes);
  families.push_back(ScrapedFamily("process_threads", "Threads of the process.",
                                   prometheus::MetricType::Gauge));
  AddSample(&families.back(), {}, memory.threads);
  return families;
}

}  // namespace mmapzero::metrics
