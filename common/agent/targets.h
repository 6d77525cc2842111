// MuZero's training targets for one sampled position (Schrittwieser et al.
// 2020, pseudocode `make_target`), for unroll steps k = 0..K from position i
// of a trajectory of T steps, with t = i + k:
//  - value z_t = sum_{j<n, t+j<T} gamma^j r_{t+j} + gamma^n v_{t+n} (the
//    bootstrap only when t+n < T: the game ends, and its terminal value is
//    0). r_t is steps[t].reward, the transition reward of the move at t; v
//    is steps[].root_value (the acting search's, or reanalyse's fresh value
//    once the replay was updated). z_t = 0 past the end (t >= T): the state
//    is absorbing.
//  - reward: 0 at k = 0 (the initial inference predicts none), else
//    steps[t-1].reward, the reward of the transition INTO t; 0 past the end.
//    A Drop-backup transition needs no special case: its stored reward
//    already includes the penalty (docs/game-engine.md).
//  - policy: steps[t].policy with weight 1 while t < T, 0 for a fast move
//    (playout cap or forced: no search made it); uniform with weight 0 past
//    the end (the policy loss is masked there, as in MuZero). A
//    demonstration's policy (one-hot on its action) is imitated only where
//    its value target beats the network's value (self-imitation, Oh et al.
//    2018): the loss applies that test (muzero_loss.h).
//  - actions (k = 1..K, K entries): steps[i+k-1].action; past the end Drop
//    (2): deterministic (no generator to checkpoint) and always a move the
//    game allows; its value/reward targets are 0 whatever the action.
#ifndef MMAPZERO_COMMON_AGENT_TARGETS_H_
#define MMAPZERO_COMMON_AGENT_TARGETS_H_

#include <array>
#include <cstdint>
#include <vector>

#include "common/agent/trajectory.h"

namespace mmapzero::agent {

inline constexpr uint8_t kPastEndAction = 2;  // Drop

struct TargetOptions {
  int unroll_steps = 5;   // K
  int td_steps = 10;      // n
  double discount = 1.0;  // gamma
};

struct PositionTargets {
  // K + 1 entries each (k = 0..K).
  std::vector<float> value;
  std::vector<float> reward;
  std::vector<std::array<float, 3>> policy;
  std::vector<float> policy_weight;  // 1 inside the trajectory, 0 past it
  // K entries: the action of the recurrent step k + 1.
  std::vector<uint8_t> actions;
  // From a demonstration trajectory: self-imitation gates the policy loss.
  bool demonstration = false;
};

// The n-step value target z_t (0 for t >= T).
float ValueTarget(const Trajectory& trajectory, int t, int td_steps,
                  double discount);

// All targets of position `index` (0 <= index < T, CHECKed).
PositionTargets MakeTargets(const Trajectory& trajectory, int index,
                            const TargetOptions& options);

}  // namespace mmapzero::agent

#endif  // MMAPZERO_COMMON_AGENT_TARGETS_H_
