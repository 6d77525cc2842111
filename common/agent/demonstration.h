// Demonstrations (MuZero Unplugged / Reanalyse from demonstrations; the
// paper's MMap-MuZero-prod starts from the heuristic's plan): a solution
// found by anything — the heuristic, evolutionary search, BRKGA, a best
// self-play game — replayed through the engine into a Trajectory that
// replay and the learner treat like a self-play game, with three
// differences: it is flagged `demonstration`, so its policy targets (one-hot
// on the solution's action) are imitated only where its value target beats
// the network's value (self-imitation); its root values are its own exact
// discounted returns-to-go (the game is deterministic); and no search made
// it. Steps follow self-play's convention (self_play.h): decisions only,
// forced moves folded into the previous step, rewards in target units.
#ifndef MMAPZERO_COMMON_AGENT_DEMONSTRATION_H_
#define MMAPZERO_COMMON_AGENT_DEMONSTRATION_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "common/agent/trajectory.h"
#include "common/game/program.h"
#include "proto/muzero.pb.h"
#include "proto/solution.pb.h"

namespace mmapzero::agent {

// Demonstrations a learner keeps (the newest): the start solution and the
// bests after it. In process and in the learner service alike.
inline constexpr int64_t kDemonstrationsKept = 8;

// The trajectory of `solution` on `program`, observed with config.features,
// rewards scaled by TargetScale(config.training), returns-to-go discounted
// by config.search.discount. InvalidArgument naming the buffer when the
// solution lacks a decision for a buffer the game asks about or plays an
// illegal action (replay stops there; nothing is returned).
absl::StatusOr<Trajectory> DemonstrationFromSolution(
    const std::shared_ptr<const game::Program>& program,
    const Solution& solution, const MuZeroConfig& config);

}  // namespace mmapzero::agent

#endif  // MMAPZERO_COMMON_AGENT_DEMONSTRATION_H_
