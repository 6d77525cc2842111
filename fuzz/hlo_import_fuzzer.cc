// Fuzzes `mmapctl import`'s path: the HLO text parser, the call inliner and
// the workload builder. Any text gives a workload that passes CheckWorkload
// or an error, never a crash; an imported workload of a few thousand
// buffers at most is then solved by the heuristic and validated.
#include <cstddef>
#include <cstdint>

#include "common/hlo/hlo_importer.h"
#include "common/workload/hardware_profiles.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mmapzero;
  static const HardwareProfile hardware =
      *HardwareProfileByName("tpu-v4i");
  hlo::HloImportOptions options;
  options.hardware = hardware;
  options.source_name = "fuzz.hlo";
  auto result = hlo::ImportHloText(fuzz::AsText(data, size), options);
  if (result.ok() && result->workload.buffers_size() <= 4096) {
    fuzz::SolveAndValidate(result->workload);
  }
  return 0;
}
