#include "common/training/target_search.h"

#include <algorithm>
#include <utility>

#include "common/base/check.h"
#include "common/base/status_macros.h"

namespace mmapzero::training {
namespace {

SearchConfig ReanalyseConfig(const SearchConfig& search) {
  SearchConfig config = search;
  config.set_mode(SearchConfig::LEARNED_MODEL);
  config.set_root_exploration_fraction(0);
  return config;
}

// Roots are observations; nothing observes a game.
void NoGames(const game::MMapGame&, features::Observation*) {
  MMAPZERO_CHECK(false, "reanalyse searches from observations only");
}

}  // namespace

TargetSearch::TargetSearch(const SearchConfig& search,
                           model::MuZeroNetwork network)
    : evaluator_(std::move(network)),
      search_(ReanalyseConfig(search), &evaluator_, NoGames) {}

absl::StatusOr<std::vector<agent::StepTargets>> TargetSearch::Search(
    const agent::Trajectory& trajectory, int first, int last, uint64_t seed) {
  first = std::max(first, 0);
  last = std::min<int>(last, trajectory.steps.size());
  if (first >= last) return std::vector<agent::StepTargets>();
  const int n = last - first;
  observations_.resize(n);
  observation_ptrs_.resize(n);
  legal_masks_.resize(n);
  seeds_.resize(n);
  for (int i = 0; i < n; ++i) {
    const agent::TrajectoryStep& step = trajectory.steps[first + i];
    agent::Expand(step.observation, &observations_[i]);
    observation_ptrs_[i] = &observations_[i];
    legal_masks_[i] = step.legal_mask;
    seeds_[i] = seed + i;
  }
  RETURN_IF_ERROR(search_.RunFromObservations(
      observation_ptrs_, legal_masks_, seeds_, /*temperature=*/0.0, &results_));
  std::vector<agent::StepTargets> targets(n);
  for (int i = 0; i < n; ++i) {
    targets[i].step = first + i;
    targets[i].root_value = results_[i].root_value;
    targets[i].policy = results_[i].policy;
  }
  return targets;
}

}  // namespace mmapzero::training
