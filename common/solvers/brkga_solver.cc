#include "common/solvers/brkga_solver.h"

#include <algorithm>
#include <cmath>
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

// Greedy chromosomes for the warm start, per action (Copy, NoCopy, Drop).
constexpr float kFastFirst[game::kNumActions] = {0.6f, 0.9f, 0.1f};
constexpr float kCopyFirst[game::kNumActions] = {0.9f, 0.6f, 0.1f};
// A warm-start solution's own action gets this key; the others kFastFirst.
constexpr float kChosenKey = 0.99f;

float UniformKey(std::mt19937_64& rng) {
  return static_cast<float>(rng() >> 40) * 0x1.0p-24f;  // [0, 1)
}

std::vector<float> RowsOf(const float (&row)[game::kNumActions], int64_t dim) {
  std::vector<float> keys(dim);
  for (int64_t j = 0; j < dim; ++j) keys[j] = row[j % game::kNumActions];
  return keys;
}

// A chromosome whose decode replays `solution`'s actions.
std::vector<float> ChromosomeOf(const Solution& solution, int64_t dim) {
  std::vector<float> keys = RowsOf(kFastFirst, dim);
  for (const BufferDecision& decision : solution.decisions()) {
    const int64_t key = int64_t{game::kNumActions} * decision.buffer_id() +
                        static_cast<int>(decision.action());
    if (decision.buffer_id() >= 0 && key < dim) keys[key] = kChosenKey;
  }
  return keys;
}

struct Sizes {
  int64_t population;
  int64_t elite;
  int64_t mutants;
};

Sizes SizesOf(const BrkgaOptions& options) {
  const auto count = [&](double fraction) {
    return static_cast<int64_t>(
        std::llround(static_cast<double>(options.population) * fraction));
  };
  return Sizes{options.population,
               std::max<int64_t>(1, count(options.elite_fraction)),
               count(options.mutant_fraction)};
}

// One Solve(): the current generation (chromosomes and their returns), the
// next one being built, and the workers. Row r of a generation is
// chromosome r; in generations after the first, rows [0, elite) are the
// elite, [elite, elite + mutants) mutants, the rest crossover children.
class BrkgaRun {
 public:
  BrkgaRun(const BrkgaOptions& options,
           const std::shared_ptr<const game::Program>& program,
           const SolverBudget& budget, std::vector<std::vector<float>> warm)
      : options_(options),
        sizes_(SizesOf(options)),
        budget_(budget),
        dim_(PreferenceDecoder::NumKeys(*program)),
        warm_(std::move(warm)),
        keys_(sizes_.population * dim_),
        next_keys_(sizes_.population * dim_),
        fitness_(sizes_.population),
        next_fitness_(sizes_.population),
        pool_(budget.threads) {
    for (int w = 0; w < pool_.threads(); ++w) decoders_.emplace_back(program);
  }

  void Run(SearchBudget& search) {
    for (int64_t generation = 0;; ++generation) {
      const int64_t first_new = generation == 0 ? 0 : sizes_.elite;
      if (generation > 0) KeepElite();
      const int64_t wanted = sizes_.population - first_new;
      const int64_t count = search.Allowed(wanted);
      pool_.Run(count, [&](int64_t i, int worker) {
        const int64_t row = first_new + i;
        float* keys = &next_keys_[row * dim_];
        std::mt19937_64 rng(MixSeed(budget_.seed, generation, row));
        if (generation == 0) {
          Initial(row, keys, rng);
        } else if (row < sizes_.elite + sizes_.mutants) {
          for (int64_t j = 0; j < dim_; ++j) keys[j] = UniformKey(rng);
        } else {
          Crossover(keys, rng);
        }
        next_fitness_[row] = decoders_[worker].Decode(Row(next_keys_, row));
      });
      search.Spend(count);
      KeepBest(first_new, count);
      keys_.swap(next_keys_);
      fitness_.swap(next_fitness_);
      if (count < wanted || search.Exhausted()) break;
      ++generations_;
      search.MaybeReport(best_.normalised_return());
    }
  }

  const BestSolution& best() const { return best_; }
  int64_t generations() const { return generations_; }

 private:
  absl::Span<const float> Row(const std::vector<float>& keys,
                              int64_t row) const {
    return absl::MakeConstSpan(&keys[row * dim_], dim_);
  }

  // Chromosome `row` of the first generation: the warm starts, then random.
  void Initial(int64_t row, float* keys, std::mt19937_64& rng) const {
    if (row < static_cast<int64_t>(warm_.size())) {
      std::copy(warm_[row].begin(), warm_[row].end(), keys);
      return;
    }
    for (int64_t j = 0; j < dim_; ++j) keys[j] = UniformKey(rng);
  }

  // Sorts the current generation by return (best first; ties by row) and
  // copies the elite into rows [0, elite) of the next.
  void KeepElite() {
    order_.resize(sizes_.population);
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(), [&](int64_t a, int64_t b) {
      return fitness_[a] > fitness_[b];
    });
    for (int64_t r = 0; r < sizes_.elite; ++r) {
      const auto from = Row(keys_, order_[r]);
      std::copy(from.begin(), from.end(), &next_keys_[r * dim_]);
      next_fitness_[r] = fitness_[order_[r]];
    }
  }

  // Biased crossover of a random elite and a random non-elite parent.
  void Crossover(float* keys, std::mt19937_64& rng) const {
    const int64_t others = sizes_.population - sizes_.elite;
    const float* elite = &keys_[order_[rng() % sizes_.elite] * dim_];
    const float* other =
        &keys_[order_[sizes_.elite + static_cast<int64_t>(rng() % others)] *
               dim_];
    const float bias = static_cast<float>(options_.elite_bias);
    for (int64_t j = 0; j < dim_; ++j) {
      keys[j] = UniformKey(rng) < bias ? elite[j] : other[j];
    }
  }

  // Offers the best of rows [first, first + count) of the next generation.
  void KeepBest(int64_t first, int64_t count) {
    const int64_t i = ArgMax(absl::MakeConstSpan(&next_fitness_[first], count));
    if (i < 0 || !best_.Improves(next_fitness_[first + i])) return;
    decoders_[0].Decode(Row(next_keys_, first + i));
    best_.Offer(decoders_[0].game());
  }

  const BrkgaOptions& options_;
  const Sizes sizes_;
  const SolverBudget& budget_;
  const int64_t dim_;
  const std::vector<std::vector<float>> warm_;
  std::vector<float> keys_;       // population x dim, current generation
  std::vector<float> next_keys_;  // population x dim, being built
  std::vector<double> fitness_;
  std::vector<double> next_fitness_;
  std::vector<int64_t> order_;  // rows of the current generation, best first
  std::vector<PreferenceDecoder> decoders_;  // one per worker
  ParallelEvaluator pool_;  // after what its tasks use: joined first
  BestSolution best_;
  int64_t generations_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<BrkgaSolver>> BrkgaSolver::Create(
    const SolverSettings& settings) {
  SettingsReader reader("brkga", settings);
  BrkgaOptions options;
  ASSIGN_OR_RETURN(options.population,
                   reader.GetInt("population", options.population, 2, 1 << 20));
  ASSIGN_OR_RETURN(
      options.elite_fraction,
      reader.GetDouble("elite_fraction", options.elite_fraction, 1e-9, 0.999));
  ASSIGN_OR_RETURN(
      options.mutant_fraction,
      reader.GetDouble("mutant_fraction", options.mutant_fraction, 0, 0.999));
  ASSIGN_OR_RETURN(options.elite_bias,
                   reader.GetDouble("elite_bias", options.elite_bias, 0, 1));
  ASSIGN_OR_RETURN(const int64_t warm, reader.GetInt("warm_start", 1, 0, 1));
  options.warm_start = warm == 1;
  ASSIGN_OR_RETURN(options.start, ReadSearchStart(reader));
  RETURN_IF_ERROR(reader.CheckNoUnknownKeys());
  const Sizes sizes = SizesOf(options);
  if (sizes.elite >= sizes.population ||
      sizes.elite + sizes.mutants > sizes.population) {
    return absl::InvalidArgumentError(absl::StrCat(
        "brkga: settings elite_fraction=", options.elite_fraction,
        " and mutant_fraction=", options.mutant_fraction, " give ", sizes.elite,
        " elite and ", sizes.mutants, " mutants of population ",
        sizes.population, "; the elite must leave room for new chromosomes"));
  }
  return std::unique_ptr<BrkgaSolver>(
      new BrkgaSolver(options, reader.effective()));
}

void BrkgaSolver::AddWarmStart(const Solution& solution) {
  warm_starts_.push_back(solution);
}

absl::StatusOr<Solution> BrkgaSolver::Solve(
    const std::shared_ptr<const game::Program>& program,
    const SolverBudget& budget) {
  RETURN_IF_ERROR(SearchBudget::Check(budget));
  const int64_t dim = PreferenceDecoder::NumKeys(*program);
  SearchBudget search(budget);
  std::vector<std::vector<float>> warm;
  if (options_.warm_start) {
    std::vector<Solution> starts = warm_starts_;
    if (starts.empty()) {
      ASSIGN_OR_RETURN(const std::optional<Solution> start,
                       PlaySearchStart(options_.start, program, budget));
      if (start) starts.push_back(*start);
    }
    for (const Solution& solution : starts) {
      warm.push_back(ChromosomeOf(solution, dim));
    }
    warm.push_back(RowsOf(kFastFirst, dim));
    warm.push_back(RowsOf(kCopyFirst, dim));
  }
  BrkgaRun run(options_, program, budget, std::move(warm));
  run.Run(search);
  return FinishSearch(search, run.best(), run.generations(), effective_, name(),
                      budget);
}

absl::StatusOr<std::unique_ptr<Solver>> MakeBrkgaSolver(
    const SolverSettings& settings) {
  ASSIGN_OR_RETURN(auto solver, BrkgaSolver::Create(settings));
  return std::unique_ptr<Solver>(std::move(solver));
}

}  // namespace mmapzero::solvers
