// The MuZero learner: samples a batch of positions from the replay, builds
// their targets (agent/targets.h), evaluates MuZeroLoss and takes one Adam
// step (TrainingConfig.learning_rate, L2 through Adam's weight_decay,
// as MuZero's pseudocode adds it to the loss).
//
// Reanalyse: with a Reanalyser attached and reanalyse_fraction f > 0, the
// first round(f * batch_size) positions of every batch are re-searched with
// the current network before their targets are built (the window of steps
// their targets read: i .. i + K + n), and the fresh values / policies are
// written back into the replay, so each batch mixes fresh and stored targets
// and later batches reuse the fresh ones. (A Reanalyser can also run on a
// thread of its own, see reanalyser.h.)
//
// Batches from elsewhere: Step(positions) trains on positions sampled by
// someone else (the learner service's, from the replay service's
// SampleBatch windows: a window is a trajectory whose step 0 is the
// sampled position, clipped where the game ended, so its targets are the
// whole game's). Such a learner needs no replay (null) and no reanalyser.
//
// Checkpoints (learner_checkpoint.h): Save/Load keep everything Step
// depends on (network, Adam state, step, replay and its generator when it
// has one), so a loaded learner continues exactly as the saved one would
// have. Step draws nothing from LibTorch's generator.
//
// Thread-safety: one thread drives a Learner; the replay may be filled
// concurrently.
#ifndef MMAPZERO_COMMON_MODEL_LEARNER_H_
#define MMAPZERO_COMMON_MODEL_LEARNER_H_

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
#include "common/model/reanalyser.h"
#include "proto/muzero.pb.h"

namespace mmapzero::model {

// One step's losses, as numbers for logging.
struct LearnerStats {
  int64_t step = 0;  // after this step
  double total = 0;
  double value = 0;
  double reward = 0;
  double policy = 0;
  int reanalysed = 0;  // positions refreshed for this batch
};

class Learner {
 public:
  // `discount` is SearchConfig.discount. `replay` (and `reanalyser`, when
  // given) are not owned and must outlive the learner; `replay` may be null
  // when every batch is given to Step(positions). InvalidArgument for a
  // non-positive batch size, unroll or td steps, or a negative rate.
  static absl::StatusOr<std::unique_ptr<Learner>> Create(
      const TrainingConfig& training, double discount, MuZeroNetwork network,
      agent::ReplayBuffer* replay, Reanalyser* reanalyser = nullptr);

  // One update on a batch sampled from the replay. FailedPrecondition when
  // the replay is empty or absent.
  absl::StatusOr<LearnerStats> Step();
  // One update on `positions` (no reanalyse). InvalidArgument when empty,
  // when a step is outside its trajectory or an observation does not have
  // the network's sizes (the message names the position).
  absl::StatusOr<LearnerStats> Step(
      const std::vector<agent::SampledPosition>& positions);

  // Everything Step depends on, into / from directory `dir`
  // (learner_checkpoint.h). Load needs a learner built with the same sizes.
  // `lease_epoch` is recorded in the checkpoint (0: none).
  absl::Status Save(const std::string& dir, int64_t lease_epoch = 0) const;
  // `note`, `lease_epoch`: as LoadLearnerCheckpoint's (a fallback to the
  // previous one; the epoch it was written under).
  absl::Status Load(const std::string& dir, std::string* note = nullptr,
                    int64_t* lease_epoch = nullptr);

  // Demonstrations (demonstration.h), not owned: from now on the last
  // round(training.demonstration_fraction * batch_size) positions of every
  // batch Step() samples come from `demonstrations` while it holds any.
  void set_demonstrations(agent::ReplayBuffer* demonstrations) {
    demonstrations_ = demonstrations;
  }

  // round(training.demonstration_fraction * batch_size): the positions of
  // a batch that come from demonstrations while there are any.
  int demonstrations_per_batch() const;

  int64_t step() const { return step_; }
  MuZeroNetwork& network() { return network_; }
  torch::optim::Adam& optimizer() { return *optimizer_; }
  const agent::TargetOptions& target_options() const { return targets_; }

 private:
  Learner(const TrainingConfig& training, double discount,
          MuZeroNetwork network, agent::ReplayBuffer* replay,
          Reanalyser* reanalyser);
  // The update itself, on checked positions.
  LearnerStats Train(const std::vector<agent::SampledPosition>& positions,
                     int reanalysed);

  TrainingConfig training_;
  agent::TargetOptions targets_;
  MuZeroNetwork network_;
  agent::ReplayBuffer* replay_;
  Reanalyser* reanalyser_;
  agent::ReplayBuffer* demonstrations_ = nullptr;
  std::unique_ptr<torch::optim::Adam> optimizer_;
  int64_t step_ = 0;
};

}  // namespace mmapzero::model

#endif  // MMAPZERO_COMMON_MODEL_LEARNER_H_
