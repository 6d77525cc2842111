// Fuzzes the MiniMalloc CSV importer (`mmapctl import X.csv`): any text is
// a workload that passes CheckWorkload or an error naming the line, never
// a crash; an imported instance is solved and validated.
#include <cstddef>
#include <cstdint>

#include "common/workload/minimalloc.h"
#include "common/workload/workload_check.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mmapzero;
  auto workload = WorkloadFromMiniMalloc(
      absl::string_view(reinterpret_cast<const char*>(data), size),
      MiniMallocOptions{.name = "fuzz", .capacity = 1 << 20});
  if (workload.ok()) {
    fuzz::Require(CheckWorkload(*workload).ok());
    if (workload->buffers_size() <= 4096) fuzz::SolveAndValidate(*workload);
  }
  return 0;
}
