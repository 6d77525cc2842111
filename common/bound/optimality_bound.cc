#include "common/bound/optimality_bound.h"

#include <optional>

#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "common/base/status_macros.h"
#include "common/bound/exact_optimum.h"
#include "common/bound/lp_bound.h"
#include "common/game/program.h"

namespace mmapzero::bound {

absl::StatusOr<OptimalityBound> ComputeBound(const Workload& workload,
                                             const BoundOptions& options) {
  const absl::Time start = absl::Now();
  // Checks the workload too.
  ASSIGN_OR_RETURN(const std::shared_ptr<const game::Program> program,
                   game::Program::Create(workload));
  OptimalityBound bound;
  if (workload.buffers_size() <= options.exact_max_buffers) {
    const std::optional<ExactOptimum> exact =
        FindExactOptimum(program, options.exact_max_moves);
    if (exact.has_value()) {
      bound.return_us = exact->best.return_us();
      bound.normalised_return = exact->best.normalised_return();
      bound.exact = true;
      bound.method = "exhaustive search";
      bound.details = absl::StrFormat("%d moves", exact->moves);
      bound.seconds = absl::ToDoubleSeconds(absl::Now() - start);
      return bound;
    }
  }
  ASSIGN_OR_RETURN(const LpBound lp, SolveLpBound(workload, {.max_seconds = options.max_seconds,
                                    .mps_path = options.lp_file}));
  bound.return_us = lp.return_us;
  bound.normalised_return = lp.normalised_return;
  bound.method = "LP relaxation";
  bound.details = absl::StrFormat("%d columns, %d rows, %d nonzeros",
                                  lp.columns, lp.rows, lp.nonzeros);
  bound.seconds = absl::ToDoubleSeconds(absl::Now() - start);
  return bound;
}

}  // namespace mmapzero::bound
