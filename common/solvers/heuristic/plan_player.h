// Plays a memory plan (heuristic_planner.h) through the MMapGame in the
// game's own chronological order, so whatever it returns is a legal game.
// The plan was made against a model (no offsets, copies reserved in rank
// order), so the engine may refuse a planned move; then a fallback is taken:
// planned NoCopy -> Copy -> Drop, planned Copy -> Drop. Drop is refused only
// inside an alias group decided fast, where any legal fast action is taken;
// a group that cannot be completed is handled by the engine's Drop-backup.
#ifndef MMAPZERO_COMMON_SOLVERS_HEURISTIC_PLAN_PLAYER_H_
#define MMAPZERO_COMMON_SOLVERS_HEURISTIC_PLAN_PLAYER_H_

#include <cstdint>
#include <memory>

#include "common/game/mmap_game.h"
#include "common/solvers/heuristic/heuristic_planner.h"

namespace mmapzero::solvers {

struct PlayStats {
  int32_t moves = 0;
  int32_t refused = 0;  // moves whose planned action was illegal
};

struct PlayOptions {
  // MSA's later passes use the space the plan left: a planned Drop of a
  // buffer with a positive benefit becomes NoCopy (else Copy) when legal.
  bool fill = false;
  // Asked every few hundred moves; the game stops unfinished once it
  // answers true (the caller checks game.IsTerminal()).
  StopRequested stop_requested;
};

// The finished game (unless stopped). `plan` is indexed by buffer id.
game::MMapGame PlayPlan(const std::shared_ptr<const game::Program>& program,
                        const MemoryPlan& plan, PlayStats* stats = nullptr,
                        const PlayOptions& options = {});

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_HEURISTIC_PLAN_PLAYER_H_
