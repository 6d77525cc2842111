#include "common/solvers/search_start.h"

#include <string>

#include "common/base/status_macros.h"
#include "common/solvers/heuristic/heuristic_solver.h"

namespace mmapzero::solvers {

absl::StatusOr<SearchStart> ReadSearchStart(SettingsReader& reader) {
  ASSIGN_OR_RETURN(const std::string start,
                   reader.GetChoice("start", "heuristic", {"heuristic", "none"}));
  return start == "heuristic" ? SearchStart::kHeuristic : SearchStart::kNone;
}

absl::StatusOr<std::optional<Solution>> PlaySearchStart(
    SearchStart start, const std::shared_ptr<const game::Program>& program,
    const SolverBudget& budget) {
  if (start == SearchStart::kNone) return std::nullopt;
  ASSIGN_OR_RETURN(const HeuristicOptions options,
                   ParseHeuristicSettings({}));
  HeuristicSolver heuristic(options);
  SolverBudget stage;
  stage.wall_time = budget.wall_time / 2;
  stage.threads = 1;
  stage.seed = budget.seed;
  stage.stop_requested = budget.stop_requested;
  stage.abandon_requested = budget.abandon_requested;
  ASSIGN_OR_RETURN(Solution solution, heuristic.Solve(program, stage));
  return solution;
}

}  // namespace mmapzero::solvers
