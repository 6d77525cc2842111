#include "common/solvers/portfolio_solver.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/solvers/best_solution.h"
#include "common/solvers/brkga_solver.h"
#include "common/solvers/search_budget.h"
#include "common/solvers/solver_factories.h"
#include "common/validate/faster_solution.h"

namespace mmapzero::solvers {
namespace {

// What the stages before the current one spent, so that the progress the
// caller sees runs on across stages.
struct Spent {
  double seconds = 0;
  int64_t evaluations = 0;
  double best = 0;
};

// `budget` for one stage: its progress reports offset by what was spent.
SolverBudget StageBudget(const SolverBudget& budget, const Spent& spent,
                         SolverProgress* last) {
  SolverBudget stage = budget;
  stage.on_progress = [&budget, spent, last](const SolverProgress& progress) {
    *last = progress;
    if (!budget.on_progress) return;
    budget.on_progress(SolverProgress{
        .elapsed_seconds = spent.seconds + progress.elapsed_seconds,
        .evaluations = spent.evaluations + progress.evaluations,
        .best_normalised_return =
            std::max(spent.best, progress.best_normalised_return)});
  };
  return stage;
}

// The fastest of `candidates` (FasterThan), each simulated; nullopt when
// there are none.
absl::StatusOr<std::optional<Solution>> Fastest(
    const Workload& workload, const std::vector<Solution>& candidates) {
  std::optional<Solution> fastest;
  for (const Solution& candidate : candidates) {
    ASSIGN_OR_RETURN(Solution simulated,
                     validate::WithSimulatedLatency(workload, candidate));
    if (!fastest || validate::FasterThan(simulated, *fastest)) {
      fastest = std::move(simulated);
    }
  }
  return fastest;
}

}  // namespace

absl::StatusOr<std::unique_ptr<PortfolioSolver>> PortfolioSolver::Create(
    const SolverSettings& settings) {
  SolverSettings brkga_settings = settings;
  bool policy_start = false;
  if (const auto it = brkga_settings.find("policy_start");
      it != brkga_settings.end()) {
    if (it->second != "0" && it->second != "1") {
      return absl::InvalidArgumentError(absl::StrCat(
          "setting policy_start: '", it->second, "' is not 0 or 1"));
    }
    policy_start = it->second == "1";
    brkga_settings.erase(it);
  }
  RETURN_IF_ERROR(BrkgaSolver::Create(brkga_settings).status());
  return std::unique_ptr<PortfolioSolver>(
      new PortfolioSolver(std::move(brkga_settings), policy_start));
}

absl::StatusOr<std::optional<Solution>> PortfolioSolver::PolicyStart(
    const std::shared_ptr<const game::Program>& program,
    const SolverBudget& stage, std::string* state) const {
  *state = policy_start_ ? "unavailable" : "off";
  if (!policy_start_) return std::nullopt;
  absl::StatusOr<std::unique_ptr<Solver>> policy = MakeSolver("policy", {});
  if (absl::IsUnimplemented(policy.status())) return std::nullopt;
  if (!policy.ok()) return policy.status();
  absl::StatusOr<Solution> solution = (*policy)->Solve(program, stage);
  // A network that does not fit the features is no reason to fail the
  // search: the portfolio goes on without that start.
  if (!solution.ok()) {
    *state = absl::StrCat("failed: ", solution.status().message());
    return std::nullopt;
  }
  *state = absl::StrCat(solution->normalised_return());
  return *std::move(solution);
}

absl::StatusOr<Solution> PortfolioSolver::Solve(
    const std::shared_ptr<const game::Program>& program,
    const SolverBudget& budget) {
  RETURN_IF_ERROR(SearchBudget::Check(budget));
  SearchBudget overall(budget);
  Spent spent;
  BestSolution best;
  // The heuristic's, the policy's, BRKGA's.
  std::vector<Solution> candidates;
  std::string heuristic_state = "unavailable";
  ASSIGN_OR_RETURN(std::unique_ptr<BrkgaSolver> brkga,
                   BrkgaSolver::Create(brkga_settings_));

  absl::StatusOr<std::unique_ptr<Solver>> heuristic =
      MakeSolver("heuristic", {});
  if (!heuristic.ok() && !absl::IsUnimplemented(heuristic.status())) {
    return heuristic.status();
  }
  if (heuristic.ok()) {
    SolverProgress last;
    SolverBudget stage = StageBudget(budget, spent, &last);
    stage.wall_time = budget.wall_time / 2;
    ASSIGN_OR_RETURN(const Solution solution,
                     (*heuristic)->Solve(program, stage));
    best.Offer(solution);
    candidates.push_back(solution);
    brkga->AddWarmStart(solution);
    heuristic_state = absl::StrCat(solution.normalised_return());
    spent =
        Spent{overall.elapsed_seconds(), std::max<int64_t>(1, last.evaluations),
              best.normalised_return()};
  }

  // The shipped network's own play, one more start (policy_start=1): a
  // tenth of the budget at most; greedy play takes about a second.
  std::string policy_state;
  {
    SolverProgress last;
    SolverBudget stage = StageBudget(budget, spent, &last);
    stage.wall_time = budget.wall_time / 10;
    ASSIGN_OR_RETURN(const std::optional<Solution> solution,
                     PolicyStart(program, stage, &policy_state));
    if (solution.has_value()) {
      best.Offer(*solution);
      candidates.push_back(*solution);
      brkga->AddWarmStart(*solution);
      spent.seconds = overall.elapsed_seconds();
      spent.evaluations += 1;
      spent.best = best.normalised_return();
    }
  }

  const bool evaluations_left =
      budget.max_evaluations == 0 || spent.evaluations < budget.max_evaluations;
  std::string brkga_state = "skipped";
  SolverSettings settings;
  if (evaluations_left) {
    SolverProgress last;
    SolverBudget stage = StageBudget(budget, spent, &last);
    stage.wall_time = std::max(absl::ZeroDuration(),
                               budget.wall_time - absl::Seconds(spent.seconds));
    if (budget.max_evaluations > 0) {
      stage.max_evaluations = budget.max_evaluations - spent.evaluations;
    }
    ASSIGN_OR_RETURN(const Solution solution, brkga->Solve(program, stage));
    best.Offer(solution);
    candidates.push_back(solution);
    brkga_state = absl::StrCat(solution.normalised_return());
    spent.evaluations += last.evaluations;
    // BRKGA's effective parameters (population, generations, ...) describe
    // the portfolio too; Finish sets its own seed, threads and evaluations.
    for (const auto& [key, value] : solution.solver().settings()) {
      settings[key] = value;
    }
  }

  for (const auto& [key, value] : brkga_settings_) settings[key] = value;
  settings["heuristic"] = heuristic_state;
  settings["brkga"] = brkga_state;
  if (policy_start_) settings["policy"] = policy_state;
  // The answer is the faster program: the lower simulated latency (a
  // higher return can stall more), ties to the higher return.
  ASSIGN_OR_RETURN(const std::optional<Solution> fastest,
                   Fastest(program->source(), candidates));
  BestSolution chosen;
  chosen.Offer(fastest ? *fastest : best.solution());
  Solution answer = chosen.Finish(name(), settings, budget, spent.evaluations,
                                  overall.elapsed_seconds());
  if (fastest) answer.set_simulated_latency_us(fastest->simulated_latency_us());
  return answer;
}

absl::StatusOr<std::unique_ptr<Solver>> MakePortfolioSolver(
    const SolverSettings& settings) {
  ASSIGN_OR_RETURN(auto solver, PortfolioSolver::Create(settings));
  return std::unique_ptr<Solver>(std::move(solver));
}

}  // namespace mmapzero::solvers
