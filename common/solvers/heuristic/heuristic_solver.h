// The "XLA" baseline: a memory-space-assignment heuristic after XLA's MSA
// (docs/heuristic.md). It plans in its own order (heuristic_planner.h) and
// plays the plan through the engine (plan_player.h), so its solutions are
// legal by construction. Deterministic: no randomness at all.
//
// Settings (MakeSolver("heuristic", ...)):
//   min_ratio, preferred_ratio, max_ratio  overlap-to-copy ratios of the
//       prefetch interval picker; defaults 0.8 / 1.5 / 10 (XLA's);
//   capacity_fraction  share of fast memory the plan may fill (default 1);
//   tuned  0 or 1: when 1, a small grid over preferred / max ratio and
//       capacity fraction, within the wall budget, keeping the best game
//       (the settings above are its first point). Reported as
//       "heuristic-tuned".
// Unknown keys and bad values are InvalidArgument naming them.
#ifndef MMAPZERO_COMMON_SOLVERS_HEURISTIC_HEURISTIC_SOLVER_H_
#define MMAPZERO_COMMON_SOLVERS_HEURISTIC_HEURISTIC_SOLVER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/solvers/heuristic/heuristic_planner.h"
#include "common/solvers/solver.h"

namespace mmapzero::solvers {

struct HeuristicOptions {
  PlannerOptions planner;
  bool tuned = false;
};

absl::StatusOr<HeuristicOptions> ParseHeuristicSettings(
    const SolverSettings& settings);

// How much wider the second default candidate's max ratio is.
inline constexpr double kWideMaxRatioFactor = 10;

// The plans the default heuristic makes and keeps the best game of:
// `base`, then `base` with its max ratio kWideMaxRatioFactor times wider
// (long residencies allowed, for programs whose copy supply is scarcer than
// their fast memory).
std::vector<PlannerOptions> DefaultCandidates(const PlannerOptions& base);

// The planner settings the tuned variant tries, DefaultCandidates first.
std::vector<PlannerOptions> TuningGrid(const PlannerOptions& base);

class HeuristicSolver : public Solver {
 public:
  explicit HeuristicSolver(HeuristicOptions options) : options_(options) {}

  // The default candidates run whatever the wall time (the heuristic is
  // the baseline of every speed-up, so its answer must not depend on the
  // machine's speed), the tuned grid's others within the wall time and
  // max_evaluations. budget.stop_requested is asked between plans (after
  // the first, so a stop still returns an answer); abandon_requested
  // inside each plan and game too, so it takes effect within a fraction
  // of a second even on a 200,000-buffer program: the best so far, or
  // Cancelled when the first plan was not played yet.
  absl::StatusOr<Solution> Solve(
      const std::shared_ptr<const game::Program>& program,
      const SolverBudget& budget) override;
  std::string name() const override {
    return options_.tuned ? "heuristic-tuned" : "heuristic";
  }

 private:
  HeuristicOptions options_;
};

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_HEURISTIC_HEURISTIC_SOLVER_H_
