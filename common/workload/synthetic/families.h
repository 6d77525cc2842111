// The model families the generator draws programs from. Each appends the
// forward program of one model to the builder, with its hyperparameters
// (batch, widths, sequence length, ...) drawn from the builder's seeded
// random source, and returns the root: the loss in training (the backward
// pass starts there), the logits in inference. `units` is the number of
// repeated units: layers (mlp), convolution blocks (cnn), residual blocks
// alternating attention and feed-forward (transformer), time steps (lstm).
// A unit's random draws come after those of the units before it, so the
// first units of a program do not depend on how many follow.
#ifndef MMAPZERO_COMMON_WORKLOAD_SYNTHETIC_FAMILIES_H_
#define MMAPZERO_COMMON_WORKLOAD_SYNTHETIC_FAMILIES_H_

#include "common/workload/synthetic/model_builder.h"

namespace mmapzero::synthetic {

int BuildMlp(ModelBuilder& mb, int units);
int BuildCnn(ModelBuilder& mb, int units);
int BuildTransformer(ModelBuilder& mb, int units);
int BuildLstm(ModelBuilder& mb, int units);

}  // namespace mmapzero::synthetic

#endif  // MMAPZERO_COMMON_WORKLOAD_SYNTHETIC_FAMILIES_H_
