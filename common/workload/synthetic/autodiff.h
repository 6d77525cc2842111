// Turns a forward program into a training step, laid out the way reverse-
// mode autodiff and an optimizer lay it out: the backward ops of the
// forward ops in reverse order (reading the activations the forward kept
// and the weights again), gradients of tensors used more than once summed
// as they arrive (fused into the dot that produces them where possible),
// and one in-place optimizer update per parameter as soon as its gradient
// is complete. Updated weights and optimizer states are program outputs;
// optimizer states exist from the program start.
#ifndef MMAPZERO_COMMON_WORKLOAD_SYNTHETIC_AUTODIFF_H_
#define MMAPZERO_COMMON_WORKLOAD_SYNTHETIC_AUTODIFF_H_

#include "common/workload/synthetic/op_graph.h"

namespace mmapzero::synthetic {

enum class OptimizerKind {
  kMomentum,  // SGD with momentum: one f32 state per parameter
  kAdam,      // Adam: two f32 states per parameter
};

// Appends the backward pass from `loss` (a scalar produced by a forward op)
// and the optimizer updates to `graph`, which holds only forward ops.
void AppendBackwardAndOptimizer(int loss, OptimizerKind optimizer,
                                OpGraph* graph);

}  // namespace mmapzero::synthetic

#endif  // MMAPZERO_COMMON_WORKLOAD_SYNTHETIC_AUTODIFF_H_
