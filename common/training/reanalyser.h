// MuZero Reanalyze (Schrittwieser et al. 2020, Appendix H): re-runs search
// with the current network on stored observations and writes the fresh root
// values and policies back into the replay (ReplayBuffer::UpdateTargets), so
// that value targets bootstrap from fresh values and policy targets follow
// the improved network, while rewards, actions and observations stay as
// played.
//
// The search itself is TargetSearch (target_search.h), shared with the
// reanalyse service (reanalyse/), which takes trajectories from the replay
// service instead of an in-process ReplayBuffer.
//
// Thread-safety: one thread at a time. Refresh reads the network: a
// reanalyse thread running beside the learner should be given its own copy
// of the network (e.g. reloaded from the latest checkpoint), as the
// LibTorch parameters are not safe to read while Adam writes them.
#ifndef MMAPZERO_COMMON_TRAINING_REANALYSER_H_
#define MMAPZERO_COMMON_TRAINING_REANALYSER_H_

#include <cstdint>
#include <memory>
#include <stop_token>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/agent/replay_buffer.h"
#include "common/model/networks.h"
#include "common/training/target_search.h"
#include "proto/muzero.pb.h"

namespace mmapzero::training {

class Reanalyser {
 public:
  // `replay` is not owned and must outlive the reanalyser. The search mode
  // is forced to LEARNED_MODEL and the root noise off.
  static absl::StatusOr<std::unique_ptr<Reanalyser>> Create(
      const SearchConfig& search, model::MuZeroNetwork network,
      agent::ReplayBuffer* replay);

  // Re-searches steps [first, last) (clamped to the trajectory) of stored
  // trajectory `id` and writes their targets back. NotFound when evicted.
  absl::Status Refresh(int64_t id, int first, int last, uint64_t seed);

  // One round of a reanalyse thread: samples `positions` positions and
  // refreshes each one's step. Evicted trajectories are skipped. It draws
  // from the replay's generator, so a learner sharing the replay no longer
  // replays bit-identically after a checkpoint load (the inline mode of
  // learner.h does not sample and keeps that property).
  absl::Status RefreshSampled(int positions, uint64_t seed);

  // Loops RefreshSampled until `stop` is requested (for a std::jthread).
  void Run(std::stop_token stop, int positions_per_round);

  int64_t refreshed_steps() const { return refreshed_steps_; }

 private:
  Reanalyser(const SearchConfig& search, model::MuZeroNetwork network,
             agent::ReplayBuffer* replay);

  agent::ReplayBuffer* replay_;
  TargetSearch search_;
  int64_t refreshed_steps_ = 0;
  uint64_t rounds_ = 0;
};

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_REANALYSER_H_
