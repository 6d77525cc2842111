#include "common/solvers/random_solver.h"

#include <vector>

#include "common/base/status_macros.h"
#include "common/solvers/best_solution.h"
#include "common/solvers/parallel_evaluator.h"
#include "common/solvers/preference_decoder.h"
#include "common/solvers/random_policy.h"
#include "common/solvers/search_budget.h"
#include "common/solvers/solver_factories.h"
#include "common/solvers/solver_settings.h"

namespace mmapzero::solvers {
namespace {

// Plays game `index` of the run seeded with `seed`.
double PlayRandom(PreferenceDecoder& player, uint64_t seed, int64_t index) {
  RandomPolicy policy(MixSeed(seed, 0, static_cast<uint64_t>(index)));
  return player.Play(
      [&policy](const game::MMapGame& game) { return policy.Choose(game); });
}

}  // namespace

absl::StatusOr<std::unique_ptr<RandomSolver>> RandomSolver::Create(
    const SolverSettings& settings) {
  SettingsReader reader("random", settings);
  ASSIGN_OR_RETURN(const int64_t batch, reader.GetInt("batch", 16, 1, 1 << 20));
  RETURN_IF_ERROR(reader.CheckNoUnknownKeys());
  return std::unique_ptr<RandomSolver>(
      new RandomSolver(batch, reader.effective()));
}

absl::StatusOr<Solution> RandomSolver::Solve(
    const std::shared_ptr<const game::Program>& program,
    const SolverBudget& budget) {
  RETURN_IF_ERROR(SearchBudget::Check(budget));
  SearchBudget search(budget);
  std::vector<PreferenceDecoder> players;
  for (int w = 0; w < budget.threads; ++w) players.emplace_back(program);
  BestSolution best;
  std::vector<double> returns;
  {
    ParallelEvaluator pool(budget.threads);
    do {
      const int64_t first = search.evaluations();
      returns.assign(search.Allowed(batch_), 0.0);
      pool.Run(static_cast<int64_t>(returns.size()), [&](int64_t i, int w) {
        returns[i] = PlayRandom(players[w], budget.seed, first + i);
      });
      search.Spend(static_cast<int64_t>(returns.size()));
      const int64_t i = ArgMax(returns);
      if (i >= 0 && best.Improves(returns[i])) {
        PlayRandom(players[0], budget.seed, first + i);
        best.Offer(players[0].game());
      }
      search.MaybeReport(best.normalised_return());
    } while (!search.Exhausted());
  }
  search.ReportFinal(best.normalised_return());
  return best.Finish(name(), effective_, budget, search.evaluations(),
                     search.elapsed_seconds());
}

absl::StatusOr<std::unique_ptr<Solver>> MakeRandomSolver(
    const SolverSettings& settings) {
  ASSIGN_OR_RETURN(auto solver, RandomSolver::Create(settings));
  return std::unique_ptr<Solver>(std::move(solver));
}

}  // namespace mmapzero::solvers
