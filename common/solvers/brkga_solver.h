// BRKGA, the baseline of REGAL (Paliwal et al. 2020) after Goncalves and
// Resende: a chromosome is a vector of random keys in [0, 1), one per
// buffer and action, decoded by PreferenceDecoder (the legal action with
// the highest key). Each generation keeps the elite (the best fraction)
// unchanged, adds fresh random mutants, and fills the rest with biased
// crossover children: every key comes from a random elite parent with
// probability elite_bias, else from a random non-elite parent. Only new
// chromosomes are evaluated. The best game ever decoded is the answer.
//
// Settings (name "brkga"):
//   population       chromosomes per generation          default 64
//   elite_fraction   share kept as elite                 default 0.2
//   mutant_fraction  share replaced by random mutants    default 0.1
//   elite_bias       P(key from the elite parent)        default 0.7
//   warm_start       1: the first generation also holds  default 1
//                    the greedy fast-first and copy-first chromosomes
//                    (and the start and any AddWarmStart solutions);
//                    0: all random
//   start            heuristic or none (search_start.h)  default heuristic
//                    (played only when warm_start is 1 and no
//                    AddWarmStart solution was given)
//
// Determinism: chromosome i of generation g draws its keys from (seed, g, i),
// so a seed gives the same answer with any number of threads under an
// evaluation budget.
#ifndef MMAPZERO_COMMON_SOLVERS_BRKGA_SOLVER_H_
#define MMAPZERO_COMMON_SOLVERS_BRKGA_SOLVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/solvers/search_start.h"
#include "common/solvers/solver.h"

namespace mmapzero::solvers {

struct BrkgaOptions {
  int64_t population = 64;
  double elite_fraction = 0.2;
  double mutant_fraction = 0.1;
  double elite_bias = 0.7;
  bool warm_start = true;
  SearchStart start = SearchStart::kHeuristic;
};

class BrkgaSolver : public Solver {
 public:
  static absl::StatusOr<std::unique_ptr<BrkgaSolver>> Create(
      const SolverSettings& settings);

  // Puts a chromosome that decodes to `solution` (a valid solution of the
  // program to be solved) into the first generation of the next Solve()
  // calls, when warm_start is on. The portfolio seeds it with the
  // heuristic's answer.
  void AddWarmStart(const Solution& solution);

  absl::StatusOr<Solution> Solve(
      const std::shared_ptr<const game::Program>& program,
      const SolverBudget& budget) override;
  std::string name() const override { return "brkga"; }

 private:
  BrkgaSolver(BrkgaOptions options, SolverSettings effective)
      : options_(options), effective_(std::move(effective)) {}

  BrkgaOptions options_;
  SolverSettings effective_;
  std::vector<Solution> warm_starts_;
};

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_BRKGA_SOLVER_H_
