// MuZero Reanalyze (Schrittwieser et al. 2020, Appendix H): re-runs search
// with the current network on stored observations and writes the fresh root
// values and policies back into the replay (ReplayBuffer::UpdateTargets), so
// that value targets bootstrap from fresh values and policy targets follow
// the improved network, while rewards, actions and observations stay as
// played.
//
// Search is BatchedSearch in LEARNED_MODEL mode with a NetworkEvaluator and
// no root noise. BatchedSearch takes game states, but the replay keeps only
// observations: each root is a stand-in game whose three actions are all
// legal, observed as the stored observation; the resulting policy is then
// restricted to the stored legal mask and renormalised. (The root value may
// so include an illegal action's visits; a search entry point taking an
// observation and a mask would remove this approximation.)
//
// Thread-safety: one thread at a time. Refresh reads the network: a
// reanalyse thread running beside the learner should be given its own copy
// of the network (e.g. reloaded from the latest checkpoint), as the
// LibTorch parameters are not safe to read while Adam writes them.
#ifndef MMAPZERO_COMMON_MODEL_REANALYSER_H_
#define MMAPZERO_COMMON_MODEL_REANALYSER_H_

#include <cstdint>
#include <memory>
#include <stop_token>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/agent/replay_buffer.h"
#include "common/game/mmap_game.h"
#include "common/model/network_evaluator.h"
#include "common/model/networks.h"
#include "common/search/batched_search.h"
#include "proto/muzero.pb.h"

namespace mmapzero::model {

class Reanalyser {
 public:
  // `replay` is not owned and must outlive the reanalyser. The search mode
  // is forced to LEARNED_MODEL and the root noise off.
  static absl::StatusOr<std::unique_ptr<Reanalyser>> Create(
      const SearchConfig& search, MuZeroNetwork network,
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
  Reanalyser(const SearchConfig& search, MuZeroNetwork network,
             agent::ReplayBuffer* replay, game::MMapGame stand_in);

  agent::ReplayBuffer* replay_;
  NetworkEvaluator evaluator_;
  game::MMapGame stand_in_;
  // Observations of the current Refresh, by root index; the search's
  // ObservationSource finds a root's index from its game's address.
  std::vector<game::MMapGame> roots_;
  std::vector<features::Observation> observations_;
  std::unique_ptr<search::BatchedSearch> search_;
  int64_t refreshed_steps_ = 0;
  uint64_t rounds_ = 0;
};

}  // namespace mmapzero::model

#endif  // MMAPZERO_COMMON_MODEL_REANALYSER_H_
