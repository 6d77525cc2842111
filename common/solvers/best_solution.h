// The best complete game a search has seen, kept as a Solution, and the
// bookkeeping every solver writes into Solution.solver at the end.
#ifndef MMAPZERO_COMMON_SOLVERS_BEST_SOLUTION_H_
#define MMAPZERO_COMMON_SOLVERS_BEST_SOLUTION_H_

#include <cstdint>
#include <limits>
#include <string>

#include "absl/types/span.h"
#include "common/game/mmap_game.h"
#include "common/solvers/solver.h"
#include "proto/solution.pb.h"

namespace mmapzero::solvers {

class BestSolution {
 public:
  bool has_solution() const { return has_solution_; }
  // A game with this return would replace the best (strictly better).
  bool Improves(double return_us) const {
    return !has_solution_ || return_us > return_us_;
  }
  // Keeps `game` (complete) when it improves on the best.
  void Offer(const game::MMapGame& game);
  // Keeps `solution` when it improves on the best.
  void Offer(const Solution& solution);

  double normalised_return() const {
    return has_solution_ ? solution_.normalised_return() : 0.0;
  }
  const Solution& solution() const { return solution_; }

  // The best solution with Solution.solver replaced: name, `settings`
  // plus seed, threads and evaluations, and wall seconds (whatever solver
  // info the kept solution came with is dropped).
  Solution Finish(const std::string& name, const SolverSettings& settings,
                  const SolverBudget& budget, int64_t evaluations,
                  double seconds) const;

 private:
  bool has_solution_ = false;
  double return_us_ = -std::numeric_limits<double>::infinity();
  Solution solution_;
};

// Index of the highest of `values` (the first on ties); -1 when empty.
int64_t ArgMax(absl::Span<const double> values);

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_BEST_SOLUTION_H_
