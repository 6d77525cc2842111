#include "coordinator/verified_solution.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/game/program.h"
#include "common/solvers/solver.h"
#include "common/validate/faster_solution.h"
#include "common/validate/validator.h"

namespace mmapzero::coordinator {

absl::StatusOr<Solution> VerifySolution(const Workload& workload,
                                        Solution solution) {
  const validate::ValidationReport report =
      validate::ValidateSolution(workload, solution);
  if (!report.ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        report.violations.size(), " violation",
        report.violations.size() == 1 ? "" : "s",
        ", first: ", validate::FormatViolation(report.violations.front())));
  }
  solution.set_return_us(report.return_us);
  solution.set_normalised_return(report.normalised_return);
  solution.set_latency_us(report.latency_us);
  // What users read and what "better" means (faster_solution.h).
  return validate::WithSimulatedLatency(workload, std::move(solution));
}

absl::StatusOr<Solution> SolveSeed(
    const Workload& workload, const std::string& solver,
    absl::Duration budget, const std::function<bool()>& stop_requested) {
  ASSIGN_OR_RETURN(std::shared_ptr<const game::Program> program,
                   game::Program::Create(workload));
  ASSIGN_OR_RETURN(std::unique_ptr<solvers::Solver> seed_solver,
                   solvers::MakeSolver(solver, {}));
  solvers::SolverBudget solver_budget;
  solver_budget.wall_time = budget;
  solver_budget.threads = 1;
  solver_budget.seed = 1;
  // Nobody wants a cancelled job's seed: abandoned, not merely stopped.
  solver_budget.abandon_requested = stop_requested;
  absl::StatusOr<Solution> solution =
      seed_solver->Solve(program, solver_budget);
  if (!solution.ok()) {
    return absl::InternalError(
        absl::StrCat("the seed solver ", solver,
                     " found no solution: ", solution.status().message()));
  }
  absl::StatusOr<Solution> verified =
      VerifySolution(workload, *std::move(solution));
  if (!verified.ok()) {
    return absl::InternalError(absl::StrCat(
        "the seed solver ", solver, "'s solution failed validation (a bug): ",
        verified.status().message()));
  }
  return verified;
}

}  // namespace mmapzero::coordinator
