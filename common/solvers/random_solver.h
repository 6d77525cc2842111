// Random legal play, a floor reference: uniformly random legal games
// (RandomPolicy) until the budget is spent, keeping the best. Game i is
// seeded from (seed, i), so a seed gives the same answer with any number
// of threads under an evaluation budget.
//
// Settings (name "random"):
//   batch  games handed to the threads at a time   default 16
#ifndef MMAPZERO_COMMON_SOLVERS_RANDOM_SOLVER_H_
#define MMAPZERO_COMMON_SOLVERS_RANDOM_SOLVER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/solvers/solver.h"

namespace mmapzero::solvers {

class RandomSolver : public Solver {
 public:
  static absl::StatusOr<std::unique_ptr<RandomSolver>> Create(
      const SolverSettings& settings);

  absl::StatusOr<Solution> Solve(
      const std::shared_ptr<const game::Program>& program,
      const SolverBudget& budget) override;
  std::string name() const override { return "random"; }

 private:
  RandomSolver(int64_t batch, SolverSettings effective)
      : batch_(batch), effective_(std::move(effective)) {}

  int64_t batch_;
  SolverSettings effective_;
};

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_RANDOM_SOLVER_H_
