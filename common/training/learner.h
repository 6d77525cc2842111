// The MuZero learner: given a batch of positions, builds their targets
// (agent/targets.h), evaluates MuZeroLoss and takes one Adam step
// (TrainingConfig.learning_rate, L2 through Adam's weight_decay, as
// MuZero's pseudocode adds it to the loss). Where batches come from
// (the replay in memory with reanalysis, or the replay service), what is
// mixed into them (demonstrations) and when parameters are published is
// the training loop's (training_loop.h), the same for the learner service
// and the in-process solver.
//
// Checkpoints (learner_checkpoint.h): Save/Load keep everything Step
// depends on (network, Adam state, step), and the replay with its sampling
// generator when the caller keeps one in memory, so a loaded learner
// continues exactly as the saved one would have. Step draws nothing from
// LibTorch's generator.
//
// Thread-safety: one thread drives a Learner.
#ifndef MMAPZERO_COMMON_TRAINING_LEARNER_H_
#define MMAPZERO_COMMON_TRAINING_LEARNER_H_

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/agent/replay_buffer.h"
#include "common/agent/targets.h"
#include "common/model/muzero_loss.h"
#include "common/model/networks.h"
#include "common/training/learner_stats.h"
#include "proto/muzero.pb.h"

namespace mmapzero::training {

class Learner {
 public:
  // `discount` is SearchConfig.discount. InvalidArgument for a
  // non-positive batch size, unroll or td steps, a negative rate or
  // weight decay, or a reanalyse or demonstration fraction outside [0, 1].
  static absl::StatusOr<std::unique_ptr<Learner>> Create(
      const TrainingConfig& training, double discount,
      model::MuZeroNetwork network);

  // One update on `positions`. InvalidArgument when empty, when a step is
  // outside its trajectory, an action is not 0..2 or an observation does
  // not have the network's sizes (the message names the position).
  absl::StatusOr<LearnerStats> Step(
      const std::vector<agent::SampledPosition>& positions);

  // Everything Step depends on, into / from directory `dir`
  // (learner_checkpoint.h), with `replay` (and its sampling generator)
  // when the caller keeps one in memory. Load needs a learner built with
  // the same sizes. `lease_epoch` is recorded in the checkpoint (0: none).
  absl::Status Save(const std::string& dir,
                    const agent::ReplayBuffer* replay = nullptr,
                    int64_t lease_epoch = 0) const;
  // `note`, `lease_epoch`: as LoadLearnerCheckpoint's (a fallback to the
  // previous one; the epoch it was written under).
  absl::Status Load(const std::string& dir,
                    agent::ReplayBuffer* replay = nullptr,
                    std::string* note = nullptr,
                    int64_t* lease_epoch = nullptr);

  int64_t step() const { return step_; }
  const TrainingConfig& training() const { return training_; }
  model::MuZeroNetwork& network() { return network_; }
  const model::MuZeroNetwork& network() const { return network_; }
  torch::optim::Adam& optimizer() { return *optimizer_; }
  const agent::TargetOptions& target_options() const { return targets_; }

 private:
  Learner(const TrainingConfig& training, double discount,
          model::MuZeroNetwork network);

  TrainingConfig training_;
  agent::TargetOptions targets_;
  model::LossWeights loss_weights_;  // training's; an unset one is 1
  model::MuZeroNetwork network_;
  std::unique_ptr<torch::optim::Adam> optimizer_;
  int64_t step_ = 0;
};

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_LEARNER_H_
