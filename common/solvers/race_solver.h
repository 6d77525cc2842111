// ES and BRKGA at the same time, each on half of the threads (at least one
// each), for the whole wall time; keeps the better of their two bests.
// Which of the two searches wins depends on the program (ES on some, BRKGA
// on others: docs/benchmarks.md), so a caller that cannot choose, such as
// the combination's seed stage (`--set seed_solver=race`), runs both.
//
// An evaluation limit is split between the two (ES gets the odd one).
// Progress is reported from the calling thread about once a second and at
// the end: the sum of both searches' games and the better best. The two
// searches are asked to stop (budget.stop_requested) through the calling
// thread, once per question of either, so the caller's callback runs on
// the thread that called Solve() as solver.h promises.
//
// Settings: `start` (search_start.h, default heuristic): the heuristic is
// played once and both searches start from its solution; otherwise each
// runs with its defaults. Solution.solver settings: `es` and `brkga` (each
// one's normalised return) and `winner`.
#ifndef MMAPZERO_COMMON_SOLVERS_RACE_SOLVER_H_
#define MMAPZERO_COMMON_SOLVERS_RACE_SOLVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/solvers/search_start.h"
#include "common/solvers/solver.h"

namespace mmapzero::solvers {

class RaceSolver : public Solver {
 public:
  // InvalidArgument for any setting but `start`.
  static absl::StatusOr<std::unique_ptr<RaceSolver>> Create(
      const SolverSettings& settings);

  absl::StatusOr<Solution> Solve(
      const std::shared_ptr<const game::Program>& program,
      const SolverBudget& budget) override;
  std::string name() const override { return "race"; }

 private:
  explicit RaceSolver(SearchStart start) : start_(start) {}

  SearchStart start_;
};

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_RACE_SOLVER_H_
