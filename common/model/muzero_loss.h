// MuZero's training loss (Schrittwieser et al. 2020, pseudocode
// `update_weights`), over a batch of positions with K unroll steps:
// initial inference on the root observations, then K recurrent steps along
// the stored actions, the hidden state's gradient scaled by 0.5 at each step
// (scale_gradient). Per step k, cross-entropy of
//  - value logits against the two-hot of h(z_k) (support_scaling.h),
//  - reward logits against the two-hot of h(u_k) (k >= 1; the initial
//    inference predicts no reward),
//  - policy logits against the search policy, weighted by the policy mask
//    (0 past the end of the game).
// As in the pseudocode, the root step has weight 1 and each recurrent step
// 1/K, so the unroll contributes as much as the root whatever K. Losses are
// means over the batch; the total weighs the value and reward parts by
// LossWeights (TrainingConfig.value_loss_weight, reward_loss_weight).
#ifndef MMAPZERO_COMMON_MODEL_MUZERO_LOSS_H_
#define MMAPZERO_COMMON_MODEL_MUZERO_LOSS_H_

#include <torch/torch.h>

#include <vector>

#include "common/agent/targets.h"
#include "common/agent/trajectory.h"
#include "common/model/networks.h"

namespace mmapzero::model {

// Batch-first tensors of a training batch (B positions, K unroll steps).
struct TrainingBatch {
  torch::Tensor occupancy;       // [B, 1, H, W] float
  torch::Tensor vector;          // [B, D] float
  torch::Tensor actions;         // [B, K] int64
  torch::Tensor value_targets;   // [B, K + 1] raw scalars
  torch::Tensor reward_targets;  // [B, K + 1] raw scalars
  torch::Tensor policy_targets;  // [B, K + 1, 3]
  torch::Tensor policy_weights;  // [B, K + 1]
  // [B]: 1 for a position of a demonstration, whose policy is imitated
  // only where its value target beats the network's value (self-imitation).
  torch::Tensor demonstrations;
};

// Stacks positions (each a root step and its targets, all with the same K)
// on `device`. The occupancy is expanded from its byte quantisation.
TrainingBatch StackBatch(const std::vector<const agent::TrajectoryStep*>& roots,
                         const std::vector<agent::PositionTargets>& targets,
                         const ObservationShape& shape, torch::Device device);

struct LossParts {
  torch::Tensor total;  // scalar with the graph, for backward()
  // The parts, each weighted by its steps' weights (not by LossWeights),
  // summed over the steps.
  double value = 0;
  double reward = 0;
  double policy = 0;
};

// x in the forward pass, its gradient times `scale` in the backward pass.
torch::Tensor ScaleGradient(const torch::Tensor& x, double scale);

// Cross-entropy of `logits` [B, C] against target distributions [B, C],
// per sample ([B]).
torch::Tensor SoftCrossEntropy(const torch::Tensor& logits,
                               const torch::Tensor& targets);

// The value and reward losses' weights in the total, the policy's being 1.
struct LossWeights {
  double value = 1;
  double reward = 1;
};

LossParts MuZeroLoss(MuZeroNetwork& network, const TrainingBatch& batch,
                     const LossWeights& weights = {});

}  // namespace mmapzero::model

#endif  // MMAPZERO_COMMON_MODEL_MUZERO_LOSS_H_
