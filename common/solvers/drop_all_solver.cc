#include "common/solvers/drop_all_solver.h"

#include "common/base/status_macros.h"
#include "common/solvers/best_solution.h"
#include "common/solvers/preference_policy.h"
#include "common/solvers/search_budget.h"
#include "common/solvers/solver_factories.h"
#include "common/solvers/solver_settings.h"

namespace mmapzero::solvers {

absl::StatusOr<Solution> DropAllSolver::Solve(
    const std::shared_ptr<const game::Program>& program,
    const SolverBudget& budget) {
  RETURN_IF_ERROR(SearchBudget::Check(budget));
  SearchBudget search(budget);
  PreferencePolicy policy(name(), {game::Action::kDrop, game::Action::kNoCopy,
                                   game::Action::kCopy});
  game::MMapGame game(program);
  PlayOut(game, policy);
  search.Spend(1);
  BestSolution best;
  best.Offer(game);
  search.ReportFinal(best.normalised_return());
  return best.Finish(name(), {}, budget, search.evaluations(),
                     search.elapsed_seconds());
}

absl::StatusOr<std::unique_ptr<Solver>> MakeDropAllSolver(
    const SolverSettings& settings) {
  SettingsReader reader("drop-all", settings);
  RETURN_IF_ERROR(reader.CheckNoUnknownKeys());
  return std::make_unique<DropAllSolver>();
}

}  // namespace mmapzero::solvers
