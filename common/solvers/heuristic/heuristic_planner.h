// The planning pass of the heuristic (XLA MSA-like, docs/heuristic.md):
// alias sets in memory-boundedness order (memory_boundedness.h), each
// tensor's buffers in time order, every buffer given an intended action
// against the planner's own model of the game: a capacity profile of fast
// memory (capacity_profile.h) and a copy ledger with the engine's copy rule
// (game/copy_ledger.h), both filled in rank order rather than the game's
// chronological order. Per buffer:
//  - output: keep it for its whole live range (NoCopy) when the picker
//    allows that residency, else write it back (Copy) and keep it only
//    around its definition, else leave it in slow memory (Drop);
//  - operand: NoCopy when the tensor is resident at the use or may stay
//    resident across the gap (CanKeepResident) and the gap fits; else a
//    prefetch (Copy) whose reserved interval starts at the picker's first
//    candidate that fits; else Drop.
// An alias set is placed all or nothing: when a member of an alias group
// decided fast cannot be placed, the set is rolled back and planned again
// with its alias groups in slow memory. A final fill pass, in the game's
// order, plans the buffers still dropped into the space and copy supply
// left, without the max ratio (MSA's later passes over leftover space).
#ifndef MMAPZERO_COMMON_SOLVERS_HEURISTIC_HEURISTIC_PLANNER_H_
#define MMAPZERO_COMMON_SOLVERS_HEURISTIC_HEURISTIC_PLANNER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "common/game/action.h"
#include "common/game/program.h"
#include "common/solvers/heuristic/prefetch_interval_picker.h"

namespace mmapzero::solvers {

struct PlannerOptions {
  OverlapRatios ratios;
  // Share of fast memory the plan may fill; below 1 leaves room for the
  // fragmentation the capacity profile does not see.
  double capacity_fraction = 1.0;
};

// The intended action of every buffer, indexed by buffer id.
using MemoryPlan = std::vector<game::Action>;

// Asked now and then while planning and playing a plan (at every alias
// set while planning, every kStopCheckInterval buffers otherwise), so that
// a caller stops the work on a large program within a fraction of a second.
using StopRequested = std::function<bool()>;
inline constexpr int64_t kStopCheckInterval = 256;

// Whether `stop_requested` is set and answers true.
inline bool StopAsked(const StopRequested& stop_requested) {
  return stop_requested && stop_requested();
}

// StopAsked, when `i` (the units of work done) is a multiple of
// kStopCheckInterval.
inline bool StopAskedAt(int64_t i, const StopRequested& stop_requested) {
  return i % kStopCheckInterval == 0 && StopAsked(stop_requested);
}

// The plan; nullopt once `stop_requested` (when set) answers true.
std::optional<MemoryPlan> PlanMemorySpace(
    const game::Program& program, const PlannerOptions& options,
    const StopRequested& stop_requested = {});

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_HEURISTIC_HEURISTIC_PLANNER_H_
