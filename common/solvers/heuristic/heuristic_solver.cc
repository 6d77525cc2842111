#include "common/solvers/heuristic/heuristic_solver.h"

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/solvers/heuristic/plan_player.h"
#include "common/solvers/solver_factories.h"

namespace mmapzero::solvers {
namespace {

absl::Status BadValue(const std::string& key, const std::string& value,
                      const char* why) {
  return absl::InvalidArgumentError(
      absl::StrCat("heuristic setting ", key, "='", value, "': ", why));
}

void FillSettings(const PlannerOptions& planner, bool tuned, SolverInfo* info) {
  auto& settings = *info->mutable_settings();
  settings["min_ratio"] = absl::StrCat(planner.ratios.min);
  settings["preferred_ratio"] = absl::StrCat(planner.ratios.preferred);
  settings["max_ratio"] = absl::StrCat(planner.ratios.max);
  settings["capacity_fraction"] = absl::StrCat(planner.capacity_fraction);
  settings["tuned"] = tuned ? "1" : "0";
}

}  // namespace

absl::StatusOr<HeuristicOptions> ParseHeuristicSettings(
    const SolverSettings& settings) {
  HeuristicOptions options;
  OverlapRatios& ratios = options.planner.ratios;
  for (const auto& [key, value] : settings) {
    double number = 0;
    if (!absl::SimpleAtod(value, &number)) {
      return BadValue(key, value, "not a number");
    }
    if (key == "min_ratio") {
      ratios.min = number;
    } else if (key == "preferred_ratio") {
      ratios.preferred = number;
    } else if (key == "max_ratio") {
      ratios.max = number;
    } else if (key == "capacity_fraction") {
      if (!(number > 0 && number <= 1)) {
        return BadValue(key, value, "must be in (0, 1]");
      }
      options.planner.capacity_fraction = number;
    } else if (key == "tuned") {
      if (number != 0 && number != 1)
        return BadValue(key, value, "must be 0 or 1");
      options.tuned = number == 1;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown heuristic setting '", key,
                       "'; known: min_ratio, preferred_ratio, max_ratio, "
                       "capacity_fraction, tuned"));
    }
  }
  if (!(ratios.min > 0 && ratios.min <= ratios.preferred &&
        ratios.preferred <= ratios.max)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "heuristic ratios must satisfy 0 < min_ratio <= preferred_ratio <= "
        "max_ratio; got ",
        ratios.min, " / ", ratios.preferred, " / ", ratios.max));
  }
  return options;
}

std::vector<PlannerOptions> DefaultCandidates(const PlannerOptions& base) {
  PlannerOptions wide = base;
  wide.ratios.max = base.ratios.max * kWideMaxRatioFactor;
  return {base, wide};
}

std::vector<PlannerOptions> TuningGrid(const PlannerOptions& base) {
  std::vector<PlannerOptions> grid = DefaultCandidates(base);
  for (double fraction : {1.0, 0.9}) {
    for (double max : {2.0, 5.0, 10.0, 30.0, 100.0}) {
      for (double preferred : {1.0, 1.5, 3.0}) {
        PlannerOptions point = base;
        point.capacity_fraction = fraction;
        point.ratios.max = max;
        point.ratios.preferred = std::min(preferred, max);
        point.ratios.min = std::min(base.ratios.min, point.ratios.preferred);
        grid.push_back(point);
      }
    }
  }
  return grid;
}

absl::StatusOr<Solution> HeuristicSolver::Solve(
    const std::shared_ptr<const game::Program>& program,
    const SolverBudget& budget) {
  const absl::Time begin = absl::Now();
  const std::vector<PlannerOptions> defaults =
      DefaultCandidates(options_.planner);
  const std::vector<PlannerOptions> grid =
      options_.tuned ? TuningGrid(options_.planner) : defaults;
  SolverProgress progress;
  absl::Time last_report = begin;
  Solution best;
  PlannerOptions best_options = grid[0];
  double best_return = -1;
  for (const PlannerOptions& point : grid) {
    if (progress.evaluations > 0 && budget.asked_to_stop()) break;
    // The default candidates always run, whatever the budget: the
    // heuristic is the baseline every speed-up is measured against, so its
    // answer must not depend on the machine's speed (on a 200,000-buffer
    // program the first alone reaches 0.43 where both reach 0.71). The
    // rest run only within the budget. A stop request ends it at once.
    if (progress.evaluations >= 2 * static_cast<int64_t>(defaults.size()) &&
        (absl::Now() - begin >= budget.wall_time ||
         (budget.max_evaluations > 0 &&
          progress.evaluations >= budget.max_evaluations))) {
      break;
    }
    const std::optional<MemoryPlan> plan =
        PlanMemorySpace(*program, point, budget.abandon_requested);
    if (!plan.has_value()) break;  // abandoned
    for (bool fill : {false, true}) {
      const game::MMapGame game = PlayPlan(
          program, *plan, nullptr,
          PlayOptions{.fill = fill,
                      .stop_requested = budget.abandon_requested});
      if (!game.IsTerminal()) break;  // abandoned
      ++progress.evaluations;
      if (game.Return() > best_return) {
        best_return = game.Return();
        best = game.ToSolution();
        best_options = point;
        progress.best_normalised_return = best.normalised_return();
      }
    }
    progress.elapsed_seconds = absl::ToDoubleSeconds(absl::Now() - begin);
    if (budget.on_progress && absl::Now() - last_report >= absl::Seconds(1)) {
      last_report = absl::Now();
      budget.on_progress(progress);
    }
  }
  progress.elapsed_seconds = absl::ToDoubleSeconds(absl::Now() - begin);
  if (budget.on_progress) budget.on_progress(progress);
  if (progress.evaluations == 0) {
    return absl::CancelledError(absl::StrCat(
        "the heuristic was abandoned before its first plan was played (",
        absl::FormatDuration(absl::Trunc(absl::Now() - begin,
                                         absl::Milliseconds(1))),
        ")"));
  }
  SolverInfo* info = best.mutable_solver();
  info->set_name(name());
  // The default's settings reproduce its game; the tuned variant's are
  // those of the grid point whose game it returns.
  FillSettings(options_.tuned ? best_options : options_.planner, options_.tuned,
               info);
  info->set_wall_seconds(progress.elapsed_seconds);
  return best;
}

absl::StatusOr<std::unique_ptr<Solver>> MakeHeuristicSolver(
    const SolverSettings& settings) {
  absl::StatusOr<HeuristicOptions> options = ParseHeuristicSettings(settings);
  if (!options.ok()) return options.status();
  return std::make_unique<HeuristicSolver>(*options);
}

}  // namespace mmapzero::solvers
