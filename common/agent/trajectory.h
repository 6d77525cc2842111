// One self-play game as training sees it (MuZero's "game history"): per
// move, the observation before it, the action, the transition reward (with
// any Drop-backup penalty, docs/game-engine.md), the search's root value and
// policy target. Observations are stored compactly: the occupancy map
// quantised to bytes (values in [0, 1] -> 0..255), the vector as floats.
#ifndef MMAPZERO_COMMON_AGENT_TRAJECTORY_H_
#define MMAPZERO_COMMON_AGENT_TRAJECTORY_H_

#include <array>
#include <cstdint>
#include <vector>

#include "common/features/observation.h"

namespace mmapzero::agent {

struct CompactObservation {
  std::vector<uint8_t> occupancy;  // round(255 * value)
  std::vector<float> vector;
};

// Quantises / restores the occupancy map; the vector is copied as is.
CompactObservation Compact(const features::Observation& observation);
void Expand(const CompactObservation& compact, features::Observation* out);

struct TrajectoryStep {
  CompactObservation observation;  // before the move
  int32_t buffer = -1;
  uint8_t action = 0;              // 0 Copy, 1 NoCopy, 2 Drop
  uint8_t legal_mask = 0;          // bit a: action a legal at the root
  float reward = 0;                // transition reward, penalty included
  float root_value = 0;            // search value at the root
  std::array<float, 3> policy{};   // search policy target
  // Played without a search (playout cap, or the only legal action): the
  // policy is no training target; root_value is still a value estimate.
  bool fast_move = false;
};

struct Trajectory {
  std::vector<TrajectoryStep> steps;  // in play order
  double episode_return = 0;          // sum of rewards
  double normalised_return = 0;
  int64_t parameter_version = 0;      // learner step of the acting network
  int32_t drop_backups = 0;
  // A replayed solution (the heuristic's plan or a best game): its policy
  // is imitated only where its return beats the network's value.
  bool demonstration = false;
  // A variation of the best game that ended where it rejoined it
  // (search.best_start_rejoin_moves): not played to its end, so there is
  // no solution; its last reward and episode_return include the best
  // game's return from there on.
  bool rejoined = false;
  // A segment of a game that goes on past it (self-play's
  // max_segment_steps: long games reach replay in pieces while they are
  // played): no finished game, no solution. The game's last piece has
  // continues = false.
  bool continues = false;
  // The last context_steps steps are not positions to sample: they are
  // there so that the targets of the positions before them (K unroll
  // steps, n-step values) are those of the whole game. A segment that
  // continues holds K + n of them; the next segment starts with them.
  int32_t context_steps = 0;
};

// The steps of `trajectory` that replay samples as positions.
inline int64_t SampleableSteps(const Trajectory& trajectory) {
  return static_cast<int64_t>(trajectory.steps.size()) -
         trajectory.context_steps;
}

}  // namespace mmapzero::agent

#endif  // MMAPZERO_COMMON_AGENT_TRAJECTORY_H_
