// MuZero Reanalyze's search (Schrittwieser et al. 2020, Appendix H): fresh
// root values and policies for stored steps of a trajectory, searched with
// the current network from each step's stored observation and legal mask
// (BatchedSearch::RunFromObservations) in LEARNED_MODEL mode with no root
// noise. Illegal actions get no prior and no visits, so the policy is 0 on
// them and the value comes from legal lines only, as in self-play.
//
// Shared by Reanalyser (in-process replay) and the reanalyse service
// (reanalyse/, replay over gRPC): both only differ in where trajectories
// come from and where the targets go.
//
// Thread-safety: one thread at a time.
#ifndef MMAPZERO_COMMON_TRAINING_TARGET_SEARCH_H_
#define MMAPZERO_COMMON_TRAINING_TARGET_SEARCH_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "common/agent/replay_buffer.h"
#include "common/agent/trajectory.h"
#include "common/model/network_evaluator.h"
#include "common/model/networks.h"
#include "common/search/batched_search.h"
#include "proto/muzero.pb.h"

namespace mmapzero::training {

class TargetSearch {
 public:
  // Shares `network` (a module holder): parameters loaded into it later
  // are the ones searched with. The search mode is forced to LEARNED_MODEL
  // and the root noise off.
  TargetSearch(const SearchConfig& search, model::MuZeroNetwork network);

  // Targets for steps [first, last) of `trajectory`, clamped to it (empty
  // when nothing is left); step first + i is searched with seed seed + i.
  // InvalidArgument from the search for a stored mask with no legal action.
  absl::StatusOr<std::vector<agent::StepTargets>> Search(
      const agent::Trajectory& trajectory, int first, int last, uint64_t seed);

 private:
  model::NetworkEvaluator evaluator_;
  search::BatchedSearch search_;
  // The current Search's roots, reused across calls.
  std::vector<features::Observation> observations_;
  std::vector<const features::Observation*> observation_ptrs_;
  std::vector<uint8_t> legal_masks_;
  std::vector<uint64_t> seeds_;
  std::vector<search::SearchResult> results_;
};

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_TARGET_SEARCH_H_
