#include "common/model/networks.h"

#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/features/feature_extractor.h"
#include "common/features/feature_hash.h"
#include "common/model/support_scaling.h"

namespace mmapzero::model {
namespace {

// The occupancy ResNet pools to a fixed 4x4 map so that its output size does
// not depend on the grid.
constexpr int kPooledSide = 4;
constexpr double kMinMaxFloor = 1e-5;

torch::nn::Sequential Mlp(int in, int hidden, int out) {
  return torch::nn::Sequential(torch::nn::Linear(in, hidden), torch::nn::ReLU(),
                               torch::nn::Linear(hidden, out),
                               torch::nn::ReLU());
}

// Zero weights on an output head: value / reward start at 0 and the policy
// uniform, as is usual for MuZero (helps early training).
void ZeroInit(torch::nn::Linear& head) {
  torch::NoGradGuard no_grad;
  head->weight.zero_();
  head->bias.zero_();
}

absl::Status RequirePositive(const char* field, int value) {
  if (value > 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("network: ", field, " must be positive, got ", value));
}

}  // namespace

torch::Device DefaultDevice() {
  return torch::cuda::is_available() ? torch::Device(torch::kCUDA)
                                     : torch::Device(torch::kCPU);
}

absl::Status ValidateNetworkConfig(const NetworkConfig& config,
                                   const ObservationShape& shape) {
  const std::pair<const char*, int> fields[] = {
      {"hidden_size", config.hidden_size()},
      {"resnet_channels", config.resnet_channels()},
      {"mlp_hidden", config.mlp_hidden()},
      {"value_support_size", config.value_support_size()},
      {"reward_support_size", config.reward_support_size()},
      {"occupancy time_bins", shape.time_bins},
      {"occupancy byte_bins", shape.byte_bins},
      {"vector_size", shape.vector_size}};
  for (const auto& [field, value] : fields) {
    absl::Status status = RequirePositive(field, value);
    if (!status.ok()) return status;
  }
  if (config.resnet_blocks() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "network: resnet_blocks must be >= 0, got ", config.resnet_blocks()));
  }
  return absl::OkStatus();
}

torch::Tensor MinMaxNormalize(const torch::Tensor& x) {
  const torch::Tensor min = std::get<0>(x.min(/*dim=*/1, /*keepdim=*/true));
  const torch::Tensor max = std::get<0>(x.max(/*dim=*/1, /*keepdim=*/true));
  return (x - min) / (max - min).clamp_min(kMinMaxFloor);
}

torch::Tensor ScalarToSupportTensor(const torch::Tensor& x, int support_size) {
  const double n = support_size;
  const torch::Tensor scaled =
      (x.sign() * ((x.abs() + 1).sqrt() - 1) + kSupportEpsilon * x)
          .clamp(-n, n);
  const torch::Tensor low = scaled.floor();
  const torch::Tensor upper_weight = (scaled - low).unsqueeze(1);
  const torch::Tensor low_index = (low + n).to(torch::kLong).unsqueeze(1);
  const torch::Tensor high_index = low_index.add(1).clamp_max(2 * support_size);
  torch::Tensor out =
      torch::zeros({x.size(0), 2 * support_size + 1}, x.options());
  out.scatter_add_(1, low_index, 1 - upper_weight);
  out.scatter_add_(1, high_index, upper_weight);
  return out;
}

torch::Tensor SupportToScalarTensor(const torch::Tensor& logits) {
  const int64_t n = logits.size(1) / 2;
  const torch::Tensor support =
      torch::arange(-n, n + 1, logits.options().dtype(torch::kFloat));
  const torch::Tensor y = (logits.softmax(1) * support).sum(1);
  constexpr double kEps = kSupportEpsilon;
  const torch::Tensor root =
      ((1 + 4 * kEps * (y.abs() + 1 + kEps)).sqrt() - 1) / (2 * kEps);
  return y.sign() * (root * root - 1);
}

ResidualBlockImpl::ResidualBlockImpl(int channels) {
  const auto options =
      torch::nn::Conv2dOptions(channels, channels, 3).padding(1);
  conv1_ = register_module("conv1", torch::nn::Conv2d(options));
  conv2_ = register_module("conv2", torch::nn::Conv2d(options));
}

torch::Tensor ResidualBlockImpl::forward(const torch::Tensor& x) {
  return torch::relu(x + conv2_(torch::relu(conv1_(x))));
}

RepresentationNetImpl::RepresentationNetImpl(const NetworkConfig& config,
                                             const ObservationShape& shape) {
  const int mlp = config.mlp_hidden();
  if (config.trunk() == NetworkConfig::MLP) {
    // The occupancy map, flattened, joins the vector: no convolution.
    const int cells = shape.time_bins * shape.byte_bins;
    vector_mlp_ =
        register_module("vector_mlp", Mlp(shape.vector_size + cells, mlp, mlp));
    joint_mlp_ = register_module(
        "joint_mlp",
        torch::nn::Sequential(torch::nn::Linear(mlp, mlp), torch::nn::ReLU(),
                              torch::nn::Linear(mlp, config.hidden_size())));
    return;
  }
  const int channels = config.resnet_channels();
  stem_ = register_module(
      "stem",
      torch::nn::Conv2d(
          torch::nn::Conv2dOptions(1, channels, 3).stride(2).padding(1)));
  blocks_ = torch::nn::Sequential();
  for (int i = 0; i < config.resnet_blocks(); ++i) {
    blocks_->push_back(ResidualBlock(channels));
  }
  blocks_ = register_module("blocks", blocks_);
  grid_out_ = register_module(
      "grid_out", torch::nn::Linear(channels * kPooledSide * kPooledSide, mlp));
  vector_mlp_ = register_module("vector_mlp", Mlp(shape.vector_size, mlp, mlp));
  joint_mlp_ = register_module(
      "joint_mlp",
      torch::nn::Sequential(torch::nn::Linear(2 * mlp, mlp), torch::nn::ReLU(),
                            torch::nn::Linear(mlp, config.hidden_size())));
}

torch::Tensor RepresentationNetImpl::forward(const torch::Tensor& occupancy,
                                             const torch::Tensor& vector) {
  if (stem_.is_empty()) {  // MLP trunk
    const torch::Tensor flat =
        torch::cat({occupancy.reshape({occupancy.size(0), -1}), vector}, 1);
    return MinMaxNormalize(joint_mlp_->forward(vector_mlp_->forward(flat)));
  }
  torch::Tensor grid = torch::relu(stem_(occupancy));
  if (!blocks_->is_empty()) grid = blocks_->forward(grid);
  grid = torch::adaptive_avg_pool2d(grid, {kPooledSide, kPooledSide});
  grid = torch::relu(grid_out_(grid.flatten(1)));
  const torch::Tensor joint =
      torch::cat({grid, vector_mlp_->forward(vector)}, 1);
  return MinMaxNormalize(joint_mlp_->forward(joint));
}

DynamicsNetImpl::DynamicsNetImpl(const NetworkConfig& config) {
  const int mlp = config.mlp_hidden();
  trunk_ = register_module("trunk",
                           Mlp(config.hidden_size() + kNumActions, mlp, mlp));
  hidden_head_ = register_module("hidden_head",
                                 torch::nn::Linear(mlp, config.hidden_size()));
  reward_head_ = register_module(
      "reward_head",
      torch::nn::Linear(mlp, 2 * config.reward_support_size() + 1));
  ZeroInit(reward_head_);
}

DynamicsOutput DynamicsNetImpl::forward(const torch::Tensor& hidden,
                                        const torch::Tensor& actions) {
  const torch::Tensor one_hot =
      torch::one_hot(actions, kNumActions).to(hidden.dtype());
  const torch::Tensor x = trunk_->forward(torch::cat({hidden, one_hot}, 1));
  return {MinMaxNormalize(hidden_head_(x)), reward_head_(x)};
}

PredictionNetImpl::PredictionNetImpl(const NetworkConfig& config) {
  const int mlp = config.mlp_hidden();
  trunk_ = register_module("trunk", Mlp(config.hidden_size(), mlp, mlp));
  policy_head_ =
      register_module("policy_head", torch::nn::Linear(mlp, kNumActions));
  value_head_ = register_module(
      "value_head",
      torch::nn::Linear(mlp, 2 * config.value_support_size() + 1));
  ZeroInit(policy_head_);
  ZeroInit(value_head_);
}

void PredictionNetImpl::MakePolicyUniform() { ZeroInit(policy_head_); }

PredictionOutput PredictionNetImpl::forward(const torch::Tensor& hidden) {
  const torch::Tensor x = trunk_->forward(hidden);
  return {policy_head_(x), value_head_(x)};
}

MuZeroNetworkImpl::MuZeroNetworkImpl(const NetworkConfig& config,
                                     const ObservationShape& shape)
    : config_(config), shape_(shape) {
  representation =
      register_module("representation", RepresentationNet(config, shape));
  dynamics = register_module("dynamics", DynamicsNet(config));
  prediction = register_module("prediction", PredictionNet(config));
}

torch::Device MuZeroNetworkImpl::device() const {
  return parameters().front().device();
}

NetworkOutput MuZeroNetworkImpl::InitialInference(
    const torch::Tensor& occupancy, const torch::Tensor& vector) {
  const torch::Tensor grid =
      occupancy.dim() == 3 ? occupancy.unsqueeze(1) : occupancy;
  NetworkOutput out;
  out.hidden = representation(grid, vector);
  PredictionOutput prediction_out = prediction(out.hidden);
  out.policy_logits = prediction_out.policy_logits;
  out.value_logits = prediction_out.value_logits;
  out.value = SupportToScalarTensor(out.value_logits);
  out.reward_logits =
      torch::zeros({vector.size(0), 2 * config_.reward_support_size() + 1},
                   vector.options());
  out.reward = torch::zeros({vector.size(0)}, vector.options());
  return out;
}

NetworkOutput MuZeroNetworkImpl::RecurrentInference(
    const torch::Tensor& hidden, const torch::Tensor& actions) {
  DynamicsOutput dynamics_out = dynamics(hidden, actions);
  PredictionOutput prediction_out = prediction(dynamics_out.hidden);
  NetworkOutput out;
  out.hidden = dynamics_out.hidden;
  out.reward_logits = dynamics_out.reward_logits;
  out.reward = SupportToScalarTensor(out.reward_logits);
  out.policy_logits = prediction_out.policy_logits;
  out.value_logits = prediction_out.value_logits;
  out.value = SupportToScalarTensor(out.value_logits);
  return out;
}

absl::StatusOr<MuZeroNetwork> CreateNetwork(const NetworkConfig& config,
                                            const ObservationShape& shape,
                                            torch::Device device) {
  absl::Status status = ValidateNetworkConfig(config, shape);
  if (!status.ok()) return status;
  MuZeroNetwork network(config, shape);
  network->to(device);
  return network;
}

ObservationShape ShapeOf(const FeatureConfig& config) {
  return ObservationShape{.time_bins = config.occupancy_time_bins(),
                          .byte_bins = config.occupancy_byte_bins(),
                          .vector_size = features::VectorSize(config),
                          .feature_hash = features::FeatureHash(config)};
}

}  // namespace mmapzero::model
