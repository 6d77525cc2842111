// Fuzzes what every service does with a workload it is given: parse it
// (JSON or binary protobuf, as `ReadWorkload` does), check it, and when it
// passes, compile it into a game and solve it with the heuristic (the
// coordinator's seed solve), validating the answer. A workload that passes
// CheckWorkload must never crash, hang or fail the heuristic.
#include <cstddef>
#include <cstdint>

#include "common/workload/proto_io.h"
#include "common/workload/workload_check.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mmapzero;
  Workload workload;
  if (!ParseProtoBytes(fuzz::AsText(data, size), "fuzz", &workload).ok()) {
    return 0;
  }
  if (CheckWorkload(workload).ok() && workload.buffers_size() <= 4096) {
    fuzz::SolveAndValidate(workload);
  }
  return 0;
}
