// The budget of one search (SolverBudget) as it is spent: stops at the wall
// time or the evaluation limit, whichever comes first, sizes the next batch
// so the evaluation limit is never exceeded, and reports progress to
// budget.on_progress about once a second and once at the end. Shared by
// every search loop (ES, BRKGA, random play).
//
// Thread-safety: used by the thread that called Solve() only.
#ifndef MMAPZERO_COMMON_SOLVERS_SEARCH_BUDGET_H_
#define MMAPZERO_COMMON_SOLVERS_SEARCH_BUDGET_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/solvers/best_solution.h"
#include "common/solvers/solver.h"

namespace mmapzero::solvers {

class SearchBudget {
 public:
  // OK, or InvalidArgument naming a bad field (threads < 1, negative
  // evaluation limit).
  static absl::Status Check(const SolverBudget& budget);

  explicit SearchBudget(const SolverBudget& budget)
      : budget_(budget), start_(absl::Now()), last_report_(start_) {}

  // Evaluations so far (add with Spend).
  int64_t evaluations() const { return evaluations_; }
  void Spend(int64_t evaluations) { evaluations_ += evaluations; }

  // Out of wall time or evaluations, or asked to stop.
  bool Exhausted() const;
  // At most `wanted` evaluations that the evaluation limit still allows.
  int64_t Allowed(int64_t wanted) const;

  double elapsed_seconds() const {
    return absl::ToDoubleSeconds(absl::Now() - start_);
  }

  // Reports when a second has passed since the last report.
  void MaybeReport(double best_normalised_return);
  // The final report.
  void ReportFinal(double best_normalised_return);

 private:
  void Report(double best_normalised_return);

  const SolverBudget& budget_;
  absl::Time start_;
  absl::Time last_report_;
  int64_t evaluations_ = 0;
};

// The end of a generational search (ES, BRKGA): the final progress report,
// the generation count added to `settings`, and the best solution with
// Solution.solver filled in.
Solution FinishSearch(SearchBudget& search, const BestSolution& best,
                      int64_t generations, SolverSettings settings,
                      const std::string& name, const SolverBudget& budget);

// splitmix64: a well-mixed 64-bit value of (seed, a, b), so that candidate
// `b` of generation `a` draws the same numbers whichever thread runs it.
uint64_t MixSeed(uint64_t seed, uint64_t a, uint64_t b);

// A uniform draw in (0, 1) from a hashed (seed, salt): for a draw or two
// per move, where a generator per move would cost more than the move
// (seeding a mt19937_64 fills 312 words).
double UniformFromSeed(uint64_t seed, uint64_t salt);

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_SEARCH_BUDGET_H_
