#include "common/metrics/process_memory.h"

#include <malloc.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "common/metrics/scraped_family.h"

namespace mmapzero::metrics {
ProcessMemory ReadProcessMemory() {
  ProcessMemory memory;
  int64_t threads = 0;
  // /proc/self/status lines: "VmRSS:     123456 kB", "Threads:  23".
  const struct {
    std::string key;
    int64_t* value;
    int64_t scale;
  } fields[] = {{"VmRSS:", &memory.resident_bytes, 1024},
                {"RssAnon:", &memory.resident_anonymous_bytes, 1024},
                {"RssFile:", &memory.resident_file_bytes, 1024},
                {"Threads:", &threads, 1}};
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    for (const auto& field : fields) {
      if (line.compare(0, field.key.size(), field.key) == 0) {
        *field.value =
            std::strtoll(line.c_str() + field.key.size(), nullptr, 10) *
            field.scale;
      }
    }
  }
  memory.threads = static_cast<int>(threads);
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
