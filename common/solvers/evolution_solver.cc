#include "common/solvers/evolution_solver.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/solvers/best_solution.h"
#include "common/solvers/parallel_evaluator.h"
#include "common/solvers/preference_decoder.h"
#include "common/solvers/search_budget.h"
#include "common/solvers/solver_factories.h"
#include "common/solvers/solver_settings.h"

namespace mmapzero::solvers {
namespace {

// Initial preferences per action (Copy, NoCopy, Drop).
constexpr float kPrior[game::kNumActions] = {0.2f, 0.3f, 0.0f};
// What a start solution's action gets on top: more than any two priors
// differ, so theta decodes to the start, and a few sigma, so the search
// soon tries other actions.
constexpr float kStartBias = 0.4f;

// Centred ranks of `values`: the lowest -0.5, the highest +0.5 (ties by
// index), as in Salimans et al.
std::vector<double> CentredRanks(const std::vector<double>& values) {
  const int64_t n = static_cast<int64_t>(values.size());
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(n, 0.0);
  if (n < 2) return ranks;
  for (int64_t r = 0; r < n; ++r) {
    ranks[order[r]] = static_cast<double>(r) / static_cast<double>(n - 1) - 0.5;
  }
  return ranks;
}

// One Solve(): theta, the noise of the current generation and the workers.
// Candidate 0 of a generation is theta itself; candidate 1 + 2k is
// theta + sigma * eps_k and 2 + 2k is theta - sigma * eps_k.
class EvolutionRun {
 public:
  EvolutionRun(const EvolutionOptions& options,
               const std::shared_ptr<const game::Program>& program,
               const SolverBudget& budget, const Solution* start)
      : options_(options),
        budget_(budget),
        dim_(PreferenceDecoder::NumKeys(*program)),
        pairs_(options.population / 2),
        theta_(dim_),
        noise_(pairs_ * dim_),
        pool_(budget.threads) {
    for (int64_t i = 0; i < dim_; ++i)
      theta_[i] = kPrior[i % game::kNumActions];
    if (start != nullptr) {
      for (const BufferDecision& decision : start->decisions()) {
        const int64_t key = int64_t{game::kNumActions} * decision.buffer_id() +
                            static_cast<int>(decision.action());
        if (decision.buffer_id() >= 0 && key < dim_) theta_[key] += kStartBias;
      }
      best_.Offer(*start);
    }
    for (int w = 0; w < pool_.threads(); ++w) {
      decoders_.emplace_back(program);
      scratch_.emplace_back(dim_);
    }
  }

  // Runs generations until the budget is spent.
  void Run(SearchBudget& search) {
    for (int64_t generation = 0;; ++generation) {
      const int64_t candidates = search.Allowed(1 + 2 * pairs_);
      DrawNoise(generation);
      std::vector<double> fitness(candidates);
      pool_.Run(candidates, [&](int64_t i, int worker) {
        fitness[i] = decoders_[worker].Decode(Candidate(i, scratch_[worker]));
      });
      search.Spend(candidates);
      KeepBest(fitness);
      if (candidates < 1 + 2 * pairs_ || search.Exhausted()) break;
      Update(fitness);
      ++generations_;
      search.MaybeReport(best_.normalised_return());
    }
  }

  const BestSolution& best() const { return best_; }
  int64_t generations() const { return generations_; }

 private:
  void DrawNoise(int64_t generation) {
    pool_.Run(pairs_, [&](int64_t k, int) {
      std::mt19937_64 rng(MixSeed(budget_.seed, generation, k));
      std::normal_distribution<float> normal;
      float* eps = &noise_[k * dim_];
      for (int64_t j = 0; j < dim_; ++j) eps[j] = normal(rng);
    });
  }

  // Candidate i's keys, written into `keys`.
  absl::Span<const float> Candidate(int64_t i, std::vector<float>& keys) const {
    if (i == 0) return theta_;
    const int64_t k = (i - 1) / 2;
    const float step =
        static_cast<float>((i % 2 == 1 ? 1.0 : -1.0) * options_.sigma);
    const float* eps = &noise_[k * dim_];
    for (int64_t j = 0; j < dim_; ++j) keys[j] = theta_[j] + step * eps[j];
    return keys;
  }

  void KeepBest(const std::vector<double>& fitness) {
    const int64_t i = ArgMax(fitness);
    if (i < 0 || !best_.Improves(fitness[i])) return;
    decoders_[0].Decode(Candidate(i, scratch_[0]));
    best_.Offer(decoders_[0].game());
  }

  // theta += lr / (population * sigma) * sum_k (u_k+ - u_k-) eps_k.
  void Update(const std::vector<double>& fitness) {
    const std::vector<double> ranks =
        CentredRanks(std::vector<double>(fitness.begin() + 1, fitness.end()));
    const double scale =
        options_.learning_rate / (2.0 * pairs_ * options_.sigma);
    std::vector<float> weight(pairs_);
    for (int64_t k = 0; k < pairs_; ++k) {
      weight[k] = static_cast<float>(scale * (ranks[2 * k] - ranks[2 * k + 1]));
    }
    for (int64_t k = 0; k < pairs_; ++k) {
      const float* eps = &noise_[k * dim_];
      for (int64_t j = 0; j < dim_; ++j) theta_[j] += weight[k] * eps[j];
    }
  }

  const EvolutionOptions& options_;
  const SolverBudget& budget_;
  const int64_t dim_;
  const int64_t pairs_;
  std::vector<float> theta_;
  std::vector<float> noise_;                 // pairs_ x dim_
  std::vector<PreferenceDecoder> decoders_;  // one per worker
  std::vector<std::vector<float>> scratch_;  // one per worker
  ParallelEvaluator pool_;  // after what its tasks use: joined first
  BestSolution best_;
  int64_t generations_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<EvolutionSolver>> EvolutionSolver::Create(
    const SolverSettings& settings) {
  SettingsReader reader("es", settings);
  EvolutionOptions options;
  ASSIGN_OR_RETURN(options.population,
                   reader.GetInt("population", options.population, 2, 1 << 20));
  if (options.population % 2 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("es: setting population: must be even (antithetic "
                     "pairs), got '",
                     options.population, "'"));
  }
  ASSIGN_OR_RETURN(options.sigma,
                   reader.GetDouble("sigma", options.sigma, 1e-6, 1e3));
  ASSIGN_OR_RETURN(
      options.learning_rate,
      reader.GetDouble("learning_rate", options.learning_rate, 1e-9, 1e3));
  ASSIGN_OR_RETURN(options.start, ReadSearchStart(reader));
  RETURN_IF_ERROR(reader.CheckNoUnknownKeys());
  return std::unique_ptr<EvolutionSolver>(
      new EvolutionSolver(options, reader.effective()));
}

absl::StatusOr<Solution> EvolutionSolver::Solve(
    const std::shared_ptr<const game::Program>& program,
    const SolverBudget& budget) {
  RETURN_IF_ERROR(SearchBudget::Check(budget));
  SearchBudget search(budget);
  std::optional<Solution> start = start_from_;
  if (!start) {
    ASSIGN_OR_RETURN(start, PlaySearchStart(options_.start, program, budget));
  }
  EvolutionRun run(options_, program, budget, start ? &*start : nullptr);
  run.Run(search);
  return FinishSearch(search, run.best(), run.generations(), effective_, name(),
                      budget);
}

absl::StatusOr<std::unique_ptr<Solver>> MakeEvolutionSolver(
    const SolverSettings& settings) {
  ASSIGN_OR_RETURN(auto solver, EvolutionSolver::Create(settings));
  return std::unique_ptr<Solver>(std::move(solver));
}

}  // namespace mmapzero::solvers
