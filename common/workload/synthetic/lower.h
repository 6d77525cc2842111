// Lowers an OpGraph to a Workload's instructions and buffers (rules §1-2).
// Op t becomes instruction t with a roofline latency of its FLOPs; it reads
// one operand buffer per operand tensor and writes one output buffer per
// output, operands first, so buffer ids follow the game's decision order.
// A tensor lives from its producer (step 0 for inputs, weights and
// optimizer states) to its last use, or to the last step when it is a
// program output. An in-place candidate becomes an alias group of two
// buffers when the op is the operand's last use and the sizes agree.
//
// Sizes and FLOPs are multiplied by one scale factor, which sets the memory
// pressure and keeps every op's arithmetic intensity, hence whether it is
// compute- or memory-bound on the profile.
#ifndef MMAPZERO_COMMON_WORKLOAD_SYNTHETIC_LOWER_H_
#define MMAPZERO_COMMON_WORKLOAD_SYNTHETIC_LOWER_H_

#include <cstdint>
#include <vector>

#include "common/workload/synthetic/op_graph.h"
#include "proto/workload.pb.h"

namespace mmapzero::synthetic {

struct LoweringOptions {
  double scale = 1.0;          // multiplies bytes and FLOPs (then rounded)
  int64_t size_granule = 512;  // sizes round to a positive multiple of this
};

// [start, end] in op indices; start = -1 for a tensor no op touches.
struct TensorLifetime {
  int start = -1;
  int end = -1;
};
std::vector<TensorLifetime> TensorLifetimes(const OpGraph& graph);

// The largest sum of unscaled bytes of the tensors live at one step.
int64_t PeakLiveBytes(const OpGraph& graph);
// The unscaled bytes of the largest tensor any op touches.
int64_t LargestTensorBytes(const OpGraph& graph);

// Appends the graph's instructions and buffers to `workload`; the caller
// sets the hardware, memory size and the rest.
void LowerToWorkload(const OpGraph& graph, const LoweringOptions& options,
                     Workload* workload);

}  // namespace mmapzero::synthetic

#endif  // MMAPZERO_COMMON_WORKLOAD_SYNTHETIC_LOWER_H_
