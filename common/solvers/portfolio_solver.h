// The best solver available until the agent lands, and the default of
// `mmapctl solve`: the heuristic first (when it is built; skipped while its
// factory answers Unimplemented) with up to half of the wall time, then
// BRKGA for the rest of the budget, warm-started with the heuristic's
// answer so it can only improve on it. Answers the faster of the two as
// users judge it (validate/faster_solution.h: the lower simulated latency,
// ties to the higher return), with its simulated latency set.
//
// Settings (name "portfolio") are BRKGA's (brkga_solver.h), and
// policy_start (0 or 1, default 0): after the heuristic, the network's own
// play (the `policy` solver, training/policy_solver.h, where it is built:
// the shipped pretrained network) with up to a tenth of the budget, one
// more candidate and one more warm start for BRKGA.
#ifndef MMAPZERO_COMMON_SOLVERS_PORTFOLIO_SOLVER_H_
#define MMAPZERO_COMMON_SOLVERS_PORTFOLIO_SOLVER_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "common/solvers/solver.h"

namespace mmapzero::solvers {

class PortfolioSolver : public Solver {
 public:
  static absl::StatusOr<std::unique_ptr<PortfolioSolver>> Create(
      const SolverSettings& settings);

  absl::StatusOr<Solution> Solve(
      const std::shared_ptr<const game::Program>& program,
      const SolverBudget& budget) override;
  std::string name() const override { return "portfolio"; }

 private:
  PortfolioSolver(SolverSettings brkga_settings, bool policy_start)
      : brkga_settings_(std::move(brkga_settings)),
        policy_start_(policy_start) {}

  // The policy's solution when policy_start is on and the policy solver is
  // built; `state` says what happened ("off", "unavailable", its return,
  // "failed: ...").
  absl::StatusOr<std::optional<Solution>> PolicyStart(
      const std::shared_ptr<const game::Program>& program,
      const SolverBudget& stage, std::string* state) const;

  SolverSettings brkga_settings_;
  bool policy_start_ = false;
};

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_PORTFOLIO_SOLVER_H_
