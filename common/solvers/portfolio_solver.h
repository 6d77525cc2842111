// The best solver available until the agent and the stronger baselines
// land: plays every deterministic policy once, then random games until the
// budget is spent, and keeps the solution with the highest return.
#ifndef MMAPZERO_COMMON_SOLVERS_PORTFOLIO_SOLVER_H_
#define MMAPZERO_COMMON_SOLVERS_PORTFOLIO_SOLVER_H_

#include <cstdint>
#include <functional>
#include <memory>

#include "absl/time/time.h"
#include "common/game/program.h"
#include "proto/solution.pb.h"

namespace mmapzero::solvers {

struct PortfolioOptions {
  absl::Duration budget = absl::Seconds(2);
  int64_t max_random_games = 1'000'000;
  uint64_t seed = 1;
  // Called after every game with (games played, best normalised return).
  std::function<void(int64_t, double)> on_progress;
};

struct PortfolioResult {
  Solution best;          // with solver name and settings filled in
  int64_t games = 0;
  double seconds = 0;
};

PortfolioResult SolveWithPortfolio(
    const std::shared_ptr<const game::Program>& program,
    const PortfolioOptions& options);

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_PORTFOLIO_SOLVER_H_
