#include "common/solvers/best_solution.h"

#include "absl/strings/str_cat.h"

namespace mmapzero::solvers {

void BestSolution::Offer(const game::MMapGame& game) {
  if (!Improves(game.Return())) return;
  has_solution_ = true;
  return_us_ = game.Return();
  solution_ = game.ToSolution();
}

void BestSolution::Offer(const Solution& solution) {
  if (!Improves(solution.return_us())) return;
  has_solution_ = true;
  return_us_ = solution.return_us();
  solution_ = solution;
}

Solution BestSolution::Finish(const std::string& name,
                              const SolverSettings& settings,
                              const SolverBudget& budget, int64_t evaluations,
                              double seconds) const {
  Solution solution = solution_;
  SolverInfo* info = solution.mutable_solver();
  // A kept solution from another solver (a stage, a race, a checkpoint)
  // carries that solver's own bookkeeping; the result is this solver's.
  info->Clear();
  info->set_name(name);
  auto& out = *info->mutable_settings();
  for (const auto& [key, value] : settings) out[key] = value;
  out["seed"] = absl::StrCat(budget.seed);
  out["threads"] = absl::StrCat(budget.threads);
  out["evaluations"] = absl::StrCat(evaluations);
  info->set_wall_seconds(seconds);
  return solution;
}

int64_t ArgMax(absl::Span<const double> values) {
  int64_t best = -1;
  for (int64_t i = 0; i < static_cast<int64_t>(values.size()); ++i) {
    if (best < 0 || values[i] > values[best]) best = i;
  }
  return best;
}

}  // namespace mmapzero::solvers
