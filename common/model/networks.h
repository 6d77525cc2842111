// The MMap-MuZero networks (paper Section 4.3, Figure 4; MuZero, Schrittwieser
// et al. 2020): representation (observation → hidden state), dynamics
// (hidden state, action → next hidden state, reward) and prediction (hidden
// state → policy over Copy/NoCopy/Drop, value). Value and reward are logits
// over the support [-n, n] of h-scaled scalars (support_scaling.h); hidden
// states are min-max normalised to [0, 1] per sample, as in MuZero, so that
// dynamics inputs keep the same scale however deep the unroll.
//
// The code is device-agnostic: DefaultDevice() is CUDA when LibTorch has it,
// the CPU otherwise (Debian's LibTorch is CPU-only).
#ifndef MMAPZERO_COMMON_MODEL_NETWORKS_H_
#define MMAPZERO_COMMON_MODEL_NETWORKS_H_

#include <torch/torch.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/muzero.pb.h"

namespace mmapzero::model {

inline constexpr int kNumActions = 3;  // Copy, NoCopy, Drop

// Input sizes fixed by the FeatureConfig (taken as numbers here so that the
// model does not depend on the feature extractor).
struct ObservationShape {
  int time_bins = 0;    // occupancy grid rows (H)
  int byte_bins = 0;    // occupancy grid columns (W)
  int vector_size = 0;  // flat feature vector (D)
  // features::FeatureHash of the FeatureConfig the observations come from
  // (ShapeOf sets it); 0: not known (networks built from sizes alone, in
  // tests and benchmarks). Checkpoints store it and a load into a network
  // of another hash is refused (network_checkpoint.h).
  int feature_hash = 0;
};

// CUDA when available, CPU otherwise.
torch::Device DefaultDevice();

// InvalidArgument naming the field when a size is not positive.
absl::Status ValidateNetworkConfig(const NetworkConfig& config,
                                   const ObservationShape& shape);

// Per-sample min-max normalisation of [B, N] to [0, 1].
torch::Tensor MinMaxNormalize(const torch::Tensor& x);
// Batched support_scaling.h: [B] scalars → [B, 2n+1] targets, and [B, 2n+1]
// logits → [B] scalars.
torch::Tensor ScalarToSupportTensor(const torch::Tensor& x, int support_size);
torch::Tensor SupportToScalarTensor(const torch::Tensor& logits);

// Residual block (3x3 convs, no normalisation so that outputs do not depend
// on the batch): relu(x + conv(relu(conv(x)))).
class ResidualBlockImpl : public torch::nn::Module {
 public:
  explicit ResidualBlockImpl(int channels);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::Conv2d conv2_{nullptr};
};
TORCH_MODULE(ResidualBlock);

// Figure 4 (trunk CONV): a ResNet over the occupancy map ([B, 1, H, W]:
// stride-2 stem, resnet_blocks blocks, adaptive average pooling to 4x4,
// linear) and an MLP over the vector ([B, D]), concatenated, then an MLP to
// hidden_size. Trunk MLP (self-play on CPU cores): the map, flattened, is
// concatenated to the vector and both go through the MLPs; no convolution.
class RepresentationNetImpl : public torch::nn::Module {
 public:
  RepresentationNetImpl(const NetworkConfig& config,
                        const ObservationShape& shape);
  // Returns the normalised hidden state [B, hidden_size].
  torch::Tensor forward(const torch::Tensor& occupancy,
                        const torch::Tensor& vector);

 private:
  torch::nn::Conv2d stem_{nullptr};
  torch::nn::Sequential blocks_{nullptr};
  torch::nn::Linear grid_out_{nullptr};
  torch::nn::Sequential vector_mlp_{nullptr};
  torch::nn::Sequential joint_mlp_{nullptr};
};
TORCH_MODULE(RepresentationNet);

struct DynamicsOutput {
  torch::Tensor hidden;         // [B, hidden_size], normalised
  torch::Tensor reward_logits;  // [B, 2 * reward_support_size + 1]
};

// (hidden, one-hot action) → MLP → next hidden + reward logits.
class DynamicsNetImpl : public torch::nn::Module {
 public:
  explicit DynamicsNetImpl(const NetworkConfig& config);
  // `actions` is [B] int64 in {0, 1, 2}.
  DynamicsOutput forward(const torch::Tensor& hidden,
                         const torch::Tensor& actions);

 private:
  torch::nn::Sequential trunk_{nullptr};
  torch::nn::Linear hidden_head_{nullptr};
  torch::nn::Linear reward_head_{nullptr};
};
TORCH_MODULE(DynamicsNet);

struct PredictionOutput {
  torch::Tensor policy_logits;  // [B, 3]
  torch::Tensor value_logits;   // [B, 2 * value_support_size + 1]
};

// hidden → MLP → policy logits + value logits.
class PredictionNetImpl : public torch::nn::Module {
 public:
  explicit PredictionNetImpl(const NetworkConfig& config);
  PredictionOutput forward(const torch::Tensor& hidden);
  // Zeroes the policy head, as a new network's is: every action's logit
  // 0, a uniform prior (training.initial_policy_uniform).
  void MakePolicyUniform();

 private:
  torch::nn::Sequential trunk_{nullptr};
  torch::nn::Linear policy_head_{nullptr};
  torch::nn::Linear value_head_{nullptr};
};
TORCH_MODULE(PredictionNet);

// One inference step's tensors and decoded scalars (all batch-first).
struct NetworkOutput {
  torch::Tensor hidden;         // [B, hidden_size]
  torch::Tensor value_logits;   // [B, 2n_v + 1]
  torch::Tensor reward_logits;  // [B, 2n_r + 1]; zeros (decodes to 0) at root
  torch::Tensor policy_logits;  // [B, 3]
  torch::Tensor value;          // [B], support-decoded and unscaled
  torch::Tensor reward;         // [B]
};

// The three networks together, on one device.
class MuZeroNetworkImpl : public torch::nn::Module {
 public:
  // Sizes must be valid (ValidateNetworkConfig); see CreateNetwork.
  MuZeroNetworkImpl(const NetworkConfig& config, const ObservationShape& shape);

  // occupancy [B, H, W] or [B, 1, H, W], vector [B, D].
  NetworkOutput InitialInference(const torch::Tensor& occupancy,
                                 const torch::Tensor& vector);
  // hidden [B, hidden_size], actions [B] int64.
  NetworkOutput RecurrentInference(const torch::Tensor& hidden,
                                   const torch::Tensor& actions);

  const NetworkConfig& config() const { return config_; }
  const ObservationShape& shape() const { return shape_; }
  torch::Device device() const;

  RepresentationNet representation{nullptr};
  DynamicsNet dynamics{nullptr};
  PredictionNet prediction{nullptr};

 private:
  NetworkConfig config_;
  ObservationShape shape_;
};
TORCH_MODULE(MuZeroNetwork);

// Validates the sizes, builds the network and moves it to `device`.
absl::StatusOr<MuZeroNetwork> CreateNetwork(
    const NetworkConfig& config, const ObservationShape& shape,
    torch::Device device = DefaultDevice());

// The ObservationShape of a FeatureConfig: the observation its features
// make (common/features/feature_extractor.h).
ObservationShape ShapeOf(const FeatureConfig& config);

}  // namespace mmapzero::model

#endif  // MMAPZERO_COMMON_MODEL_NETWORKS_H_
