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
};

}  // namespace mmapzero::agent

#endif  // MMAPZERO_COMMON_AGENT_TRAJECTORY_H_
