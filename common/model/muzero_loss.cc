#include "common/model/muzero_loss.h"

#include "common/base/check.h"

namespace mmapzero::model {

TrainingBatch StackBatch(const std::vector<const agent::TrajectoryStep*>& roots,
                         const std::vector<agent::PositionTargets>& targets,
                         const ObservationShape& shape, torch::Device device) {
  MMAPZERO_CHECK(!roots.empty() && roots.size() == targets.size(),
                 "one target set per root");
  const int64_t B = roots.size();
  const int64_t K = targets[0].actions.size();
  const int64_t cells = int64_t{shape.time_bins} * shape.byte_bins;
  std::vector<float> occupancy(B * cells);
  std::vector<float> vector(B * shape.vector_size);
  std::vector<int64_t> actions(B * K);
  std::vector<float> values(B * (K + 1)), rewards(B * (K + 1));
  std::vector<float> policies(B * (K + 1) * 3), weights(B * (K + 1));
  std::vector<float> demonstrations(B);
  for (int64_t b = 0; b < B; ++b) {
    const agent::CompactObservation& o = roots[b]->observation;
    MMAPZERO_CHECK(static_cast<int64_t>(o.occupancy.size()) == cells &&
                       static_cast<int>(o.vector.size()) == shape.vector_size,
                   "stored observation does not match the network's shape");
    for (int64_t c = 0; c < cells; ++c) {
      occupancy[b * cells + c] = o.occupancy[c] / 255.0f;
    }
    std::copy(o.vector.begin(), o.vector.end(),
              vector.begin() + b * shape.vector_size);
    const agent::PositionTargets& t = targets[b];
    demonstrations[b] = t.demonstration ? 1.0f : 0.0f;
    MMAPZERO_CHECK(static_cast<int64_t>(t.actions.size()) == K,
                   "every position needs the same unroll length");
    for (int64_t k = 0; k <= K; ++k) {
      const int64_t i = b * (K + 1) + k;
      if (k < K) actions[b * K + k] = t.actions[k];
      values[i] = t.value[k];
      rewards[i] = t.reward[k];
      weights[i] = t.policy_weight[k];
      for (int a = 0; a < 3; ++a) policies[i * 3 + a] = t.policy[k][a];
    }
  }
  const auto f = torch::TensorOptions().dtype(torch::kFloat);
  TrainingBatch batch;
  batch.occupancy =
      torch::from_blob(occupancy.data(),
                       {B, 1, shape.time_bins, shape.byte_bins}, f)
          .to(device, /*non_blocking=*/false, /*copy=*/true);
  batch.vector = torch::from_blob(vector.data(), {B, shape.vector_size}, f)
                     .to(device, false, true);
  batch.actions =
      torch::from_blob(actions.data(), {B, K}, f.dtype(torch::kLong))
          .to(device, false, true);
  batch.value_targets =
      torch::from_blob(values.data(), {B, K + 1}, f).to(device, false, true);
  batch.reward_targets =
      torch::from_blob(rewards.data(), {B, K + 1}, f).to(device, false, true);
  batch.policy_targets = torch::from_blob(policies.data(), {B, K + 1, 3}, f)
                             .to(device, false, true);
  batch.policy_weights =
      torch::from_blob(weights.data(), {B, K + 1}, f).to(device, false, true);
  batch.demonstrations =
      torch::from_blob(demonstrations.data(), {B}, f).to(device, false, true);
  return batch;
}

torch::Tensor ScaleGradient(const torch::Tensor& x, double scale) {
  return x * scale + x.detach() * (1.0 - scale);
}

torch::Tensor SoftCrossEntropy(const torch::Tensor& logits,
                               const torch::Tensor& targets) {
  return -(targets * torch::log_softmax(logits, 1)).sum(1);
}

LossParts MuZeroLoss(MuZeroNetwork& network, const TrainingBatch& batch,
                     const LossWeights& weights) {
  const NetworkConfig& config = network->config();
  const int64_t K = batch.actions.size(1);
  NetworkOutput out = network->InitialInference(batch.occupancy, batch.vector);
  torch::Tensor value_loss, reward_loss, policy_loss;
  for (int64_t k = 0; k <= K; ++k) {
    if (k > 0) {
      torch::Tensor hidden = ScaleGradient(out.hidden, 0.5);
      out = network->RecurrentInference(hidden, batch.actions.select(1, k - 1));
    }
    const double weight = k == 0 ? 1.0 : 1.0 / K;
    const torch::Tensor value =
        (SoftCrossEntropy(
             out.value_logits,
             ScalarToSupportTensor(batch.value_targets.select(1, k),
                                   config.value_support_size())) *
         weight)
            .mean();
    // Self-imitation: a demonstration's move is imitated only where its
    // return beats what the network expects from the state.
    const torch::Tensor better =
        (batch.value_targets.select(1, k) > out.value.detach())
            .to(torch::kFloat);
    const torch::Tensor imitate =
        1 - batch.demonstrations + batch.demonstrations * better;
    const torch::Tensor policy =
        (SoftCrossEntropy(out.policy_logits,
                          batch.policy_targets.select(1, k)) *
         batch.policy_weights.select(1, k) * imitate * weight)
            .mean();
    value_loss = k == 0 ? value : value_loss + value;
    policy_loss = k == 0 ? policy : policy_loss + policy;
    if (k > 0) {
      const torch::Tensor reward =
          (SoftCrossEntropy(
               out.reward_logits,
               ScalarToSupportTensor(batch.reward_targets.select(1, k),
                                     config.reward_support_size())) *
           weight)
              .mean();
      reward_loss = k == 1 ? reward : reward_loss + reward;
    }
  }
  if (!reward_loss.defined()) reward_loss = torch::zeros_like(value_loss);
  LossParts parts;
  parts.total =
      weights.value * value_loss + weights.reward * reward_loss + policy_loss;
  parts.value = value_loss.item<double>();
  parts.reward = reward_loss.item<double>();
  parts.policy = policy_loss.item<double>();
  return parts;
}

}  // namespace mmapzero::model
