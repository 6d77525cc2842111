// MuZero's value/reward transform (Schrittwieser et al. 2020, Appendix F;
// Pohlen et al. 2018): values are squashed by an invertible h and predicted
// as a categorical distribution over the integers [-n, n] ("two-hot"), which
// keeps the losses well-scaled for returns of very different magnitudes.
// Torch-free so that replay / targets code can use it without LibTorch; the
// batched tensor versions live in networks.h.
#ifndef MMAPZERO_COMMON_MODEL_SUPPORT_SCALING_H_
#define MMAPZERO_COMMON_MODEL_SUPPORT_SCALING_H_

#include <vector>

#include "absl/types/span.h"

namespace mmapzero::model {

// The epsilon of h, as in MuZero.
inline constexpr double kSupportEpsilon = 0.001;

// h(x) = sign(x) (sqrt(|x| + 1) - 1) + eps x.
double ScaleValue(double x);
// The exact inverse of ScaleValue.
double UnscaleValue(double y);

// Two-hot of `x` (clamped to [-n, n]) over the 2n+1 integers -n..n: the mass
// is split between floor(x) and floor(x)+1 so that the mean is x.
std::vector<float> TwoHot(double x, int support_size);
// Mean of `probabilities` (2n+1 entries) over -n..n.
double SupportMean(absl::Span<const float> probabilities);

// Training target of a raw value / reward: TwoHot(ScaleValue(x), n).
std::vector<float> ScalarToSupport(double x, int support_size);
// Decodes logits over [-n, n]: UnscaleValue(SupportMean(softmax(logits))).
double SupportToScalar(absl::Span<const float> logits);

}  // namespace mmapzero::model

#endif  // MMAPZERO_COMMON_MODEL_SUPPORT_SCALING_H_
