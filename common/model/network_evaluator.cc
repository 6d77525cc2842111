#include "common/model/network_evaluator.h"

#include <algorithm>
#include <utility>

#include "common/base/check.h"

namespace mmapzero::model {

NetworkEvaluator::NetworkEvaluator(MuZeroNetwork network)
    : network_(std::move(network)) {}

void NetworkEvaluator::InitialInference(
    absl::Span<const features::Observation* const> observations,
    std::vector<search::Inference>* out) {
  const ObservationShape& shape = network_->shape();
  const int64_t batch = static_cast<int64_t>(observations.size());
  out->resize(observations.size());
  if (batch == 0) return;
  const size_t grid_size = static_cast<size_t>(shape.time_bins) *
                           static_cast<size_t>(shape.byte_bins);
  const size_t vector_size = static_cast<size_t>(shape.vector_size);
  occupancy_staging_.resize(grid_size * observations.size());
  vector_staging_.resize(vector_size * observations.size());
  for (size_t i = 0; i < observations.size(); ++i) {
    const features::Observation& observation = *observations[i];
    MMAPZERO_CHECK(observation.occupancy.size() == grid_size,
                   "occupancy size differs from the network's grid");
    MMAPZERO_CHECK(observation.vector.size() == vector_size,
                   "vector size differs from the network's");
    std::copy(observation.occupancy.begin(), observation.occupancy.end(),
              occupancy_staging_.begin() + i * grid_size);
    std::copy(observation.vector.begin(), observation.vector.end(),
              vector_staging_.begin() + i * vector_size);
  }
  torch::NoGradGuard no_grad;
  const torch::Device device = network_->device();
  const torch::Tensor occupancy =
      torch::from_blob(occupancy_staging_.data(),
                       {batch, 1, shape.time_bins, shape.byte_bins})
          .to(device);
  const torch::Tensor vector =
      torch::from_blob(vector_staging_.data(), {batch, shape.vector_size})
          .to(device);
  Unpack(network_->InitialInference(occupancy, vector), out);
}

void NetworkEvaluator::RecurrentInference(
    absl::Span<const std::vector<float>* const> hidden,
    absl::Span<const int> actions, std::vector<search::Inference>* out) {
  MMAPZERO_CHECK(hidden.size() == actions.size(),
                 "one action per hidden state");
  const int64_t batch = static_cast<int64_t>(hidden.size());
  out->resize(hidden.size());
  if (batch == 0) return;
  const size_t hidden_size =
      static_cast<size_t>(network_->config().hidden_size());
  hidden_staging_.resize(hidden_size * hidden.size());
  action_staging_.resize(actions.size());
  for (size_t i = 0; i < hidden.size(); ++i) {
    MMAPZERO_CHECK(hidden[i]->size() == hidden_size,
                   "hidden state size differs from the network's");
    MMAPZERO_CHECK(actions[i] >= 0 && actions[i] < kNumActions,
                   "action out of range");
    std::copy(hidden[i]->begin(), hidden[i]->end(),
              hidden_staging_.begin() + i * hidden_size);
    action_staging_[i] = actions[i];
  }
  torch::NoGradGuard no_grad;
  const torch::Device device = network_->device();
  const torch::Tensor hidden_tensor =
      torch::from_blob(hidden_staging_.data(),
                       {batch, static_cast<int64_t>(hidden_size)})
          .to(device);
  const torch::Tensor action_tensor =
      torch::from_blob(action_staging_.data(), {batch}, torch::kLong)
          .to(device);
  Unpack(network_->RecurrentInference(hidden_tensor, action_tensor), out);
}

void NetworkEvaluator::Unpack(const NetworkOutput& output,
                              std::vector<search::Inference>* out) {
  const torch::Tensor hidden = output.hidden.to(torch::kCPU).contiguous();
  const torch::Tensor policy =
      output.policy_logits.to(torch::kCPU).contiguous();
  const torch::Tensor value = output.value.to(torch::kCPU).contiguous();
  const torch::Tensor reward = output.reward.to(torch::kCPU).contiguous();
  const int64_t hidden_size = hidden.size(1);
  const float* hidden_data = hidden.data_ptr<float>();
  const float* policy_data = policy.data_ptr<float>();
  const float* value_data = value.data_ptr<float>();
  const float* reward_data = reward.data_ptr<float>();
  for (size_t i = 0; i < out->size(); ++i) {
    search::Inference& inference = (*out)[i];
    const float* row = hidden_data + static_cast<int64_t>(i) * hidden_size;
    inference.hidden.assign(row, row + hidden_size);
    inference.value = value_data[i];
    inference.reward = reward_data[i];
    for (int a = 0; a < kNumActions; ++a) {
      inference.policy_logits[a] = policy_data[i * kNumActions + a];
    }
  }
}

}  // namespace mmapzero::model
