// Evolutionary search, the paper's black-box baseline (Salimans et al.
// 2017): parameters theta are per-buffer action preferences (3 per buffer),
// decoded into a legal game by PreferenceDecoder. Each generation evaluates
// theta itself and `population` antithetic Gaussian perturbations
// theta +- sigma * eps, ranks their returns (centred ranks in [-0.5, 0.5],
// so the scale of the return does not matter) and moves theta along
// sum_i rank_i * eps_i / (population * sigma) by `learning_rate`. The best
// game ever decoded is the answer.
//
// Settings (name "es"):
//   population     perturbations per generation, even      default 32
//   sigma          perturbation scale                      default 0.1
//   learning_rate  step along the rank-weighted gradient   default 0.05
//   start          heuristic or none (search_start.h)      default heuristic
// With start=none theta starts at NoCopy 0.3, Copy 0.2, Drop 0 for every
// buffer: a greedy "keep it in fast memory" game that the search then
// learns to break. With start=heuristic (or StartFrom) the action a start
// solution took gets kStartBias more, so theta decodes to that solution.
//
// Determinism: eps of pair k in generation g is drawn from (seed, g, k) and
// results are stored by index, so a seed gives the same answer with any
// number of threads under an evaluation budget.
#ifndef MMAPZERO_COMMON_SOLVERS_EVOLUTION_SOLVER_H_
#define MMAPZERO_COMMON_SOLVERS_EVOLUTION_SOLVER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "common/solvers/search_start.h"
#include "common/solvers/solver.h"

namespace mmapzero::solvers {

struct EvolutionOptions {
  int64_t population = 32;
  double sigma = 0.1;
  double learning_rate = 0.05;
  SearchStart start = SearchStart::kHeuristic;
};

class EvolutionSolver : public Solver {
 public:
  static absl::StatusOr<std::unique_ptr<EvolutionSolver>> Create(
      const SolverSettings& settings);

  // The next Solve() calls start from `solution` (a valid solution of the
  // program to be solved) instead of playing the heuristic.
  void StartFrom(const Solution& solution) { start_from_ = solution; }

  absl::StatusOr<Solution> Solve(
      const std::shared_ptr<const game::Program>& program,
      const SolverBudget& budget) override;
  std::string name() const override { return "es"; }

 private:
  EvolutionSolver(EvolutionOptions options, SolverSettings effective)
      : options_(options), effective_(std::move(effective)) {}

  EvolutionOptions options_;
  SolverSettings effective_;
  std::optional<Solution> start_from_;
};

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_EVOLUTION_SOLVER_H_
