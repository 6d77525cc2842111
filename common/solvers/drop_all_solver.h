// Drop-all, the floor of every speed-up: one game with every buffer served
// from slow memory (return 0 unless an alias rule forces otherwise, which
// it never does: Drop is legal until a group is decided fast). Ignores the
// budget beyond playing that one game; no settings.
#ifndef MMAPZERO_COMMON_SOLVERS_DROP_ALL_SOLVER_H_
#define MMAPZERO_COMMON_SOLVERS_DROP_ALL_SOLVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/solvers/solver.h"

namespace mmapzero::solvers {

class DropAllSolver : public Solver {
 public:
  absl::StatusOr<Solution> Solve(
      const std::shared_ptr<const game::Program>& program,
      const SolverBudget& budget) override;
  std::string name() const override { return "drop-all"; }
};

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_DROP_ALL_SOLVER_H_
