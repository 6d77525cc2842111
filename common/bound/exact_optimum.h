// The exact optimum of a small workload: every legal game played out by
// depth-first search with undo (the engine's moves cost about a
// microsecond), the best return kept. Exponential in the number of
// buffers (at most 3 per move), so it is for programs of a dozen buffers
// or so; it gives up after a number of moves and says so.
#ifndef MMAPZERO_COMMON_BOUND_EXACT_OPTIMUM_H_
#define MMAPZERO_COMMON_BOUND_EXACT_OPTIMUM_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "common/game/program.h"
#include "proto/solution.pb.h"

namespace mmapzero::bound {

struct ExactOptimum {
  Solution best;      // a solution with the optimal return
  int64_t moves = 0;  // moves played by the search
};

// The optimum, or nullopt when the search would play more than
// `max_moves` moves.
std::optional<ExactOptimum> FindExactOptimum(
    const std::shared_ptr<const game::Program>& program, int64_t max_moves);

}  // namespace mmapzero::bound

#endif  // MMAPZERO_COMMON_BOUND_EXACT_OPTIMUM_H_
