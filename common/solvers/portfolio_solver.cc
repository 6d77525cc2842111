#include "common/solvers/portfolio_solver.h"

#include "absl/strings/str_cat.h"
#include "common/game/mmap_game.h"
#include "common/solvers/policy.h"

namespace mmapzero::solvers {

PortfolioResult SolveWithPortfolio(
    const std::shared_ptr<const game::Program>& program,
    const PortfolioOptions& options) {
  const absl::Time start = absl::Now();
  const absl::Time deadline = start + options.budget;
  PortfolioResult result;
  double best_return = -1;
  std::string best_policy;
  uint64_t best_seed = 0;
  auto play = [&](const std::string& name, uint64_t seed) {
    auto policy = MakePolicy(name, seed);
    game::MMapGame game(program);
    PlayOut(game, **policy);
    ++result.games;
    if (game.Return() > best_return) {
      best_return = game.Return();
      result.best = game.ToSolution();
      best_policy = name;
      best_seed = seed;
    }
    if (options.on_progress) {
      options.on_progress(result.games, result.best.normalised_return());
    }
  };
  for (const char* name : {"drop-all", "fast-first", "copy-first"}) play(name, 0);
  for (int64_t i = 0; i < options.max_random_games && absl::Now() < deadline;
       ++i) {
    play("random", options.seed + static_cast<uint64_t>(i));
  }
  result.seconds = absl::ToDoubleSeconds(absl::Now() - start);
  SolverInfo* info = result.best.mutable_solver();
  info->set_name("portfolio");
  (*info->mutable_settings())["best_policy"] = best_policy;
  (*info->mutable_settings())["best_seed"] = absl::StrCat(best_seed);
  (*info->mutable_settings())["games"] = absl::StrCat(result.games);
  (*info->mutable_settings())["budget_seconds"] =
      absl::StrCat(absl::ToDoubleSeconds(options.budget));
  info->set_wall_seconds(result.seconds);
  return result;
}

}  // namespace mmapzero::solvers
