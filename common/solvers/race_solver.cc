#include "common/solvers/race_solver.h"

#include <algorithm>
#include <array>
#include <optional>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/base/status_macros.h"
#include "common/solvers/best_solution.h"
#include "common/solvers/brkga_solver.h"
#include "common/solvers/evolution_solver.h"
#include "common/solvers/search_budget.h"
#include "common/solvers/solver_factories.h"
#include "common/solvers/solver_settings.h"

namespace mmapzero::solvers {
namespace {

constexpr int kSearches = 2;
constexpr std::array<const char*, kSearches> kSearchNames = {"es", "brkga"};

// What the two search threads and the calling thread share: each search's
// latest progress and result, and the questions "stop now?" that the
// searches put and the calling thread answers.
class Race {
 public:
  explicit Race(int searches) : running_(searches) {}

  // From search `index`'s thread.
  void Progress(int index, const SolverProgress& progress)
      ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    latest_[index] = progress;
  }
  // Blocks until the calling thread has asked its caller (Serve).
  bool AskStop() ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    if (stop_) return true;
    const int64_t ticket = ++asked_;
    auto answered = [this, ticket]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return stop_ || answered_ >= ticket;
    };
    mu_.Await(absl::Condition(&answered));
    return stop_;
  }
  void Finish(int index, absl::StatusOr<Solution> result)
      ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    results_[index] = std::move(result);
    --running_;
  }

  // On the calling thread until every search has finished: answers their
  // questions with budget.stop_requested, reports their sum to
  // budget.on_progress about once a second, and once at the end.
  void Serve(const SolverBudget& budget, absl::Time start)
      ABSL_LOCKS_EXCLUDED(mu_) {
    absl::Time last_report = start;
    mu_.Lock();
    while (true) {
      auto due = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return running_ == 0 || asked_ > answered_;
      };
      mu_.AwaitWithDeadline(absl::Condition(&due),
                            last_report + absl::Seconds(1));
      if (asked_ > answered_) {
        const int64_t questions = asked_;
        mu_.Unlock();
        const bool stop = budget.asked_to_stop();
        mu_.Lock();
        stop_ = stop_ || stop;
        answered_ = questions;
      }
      const bool finished = running_ == 0;
      const absl::Time now = absl::Now();
      if (finished || now - last_report >= absl::Seconds(1)) {
        SolverProgress sum = SumLocked();
        sum.elapsed_seconds = absl::ToDoubleSeconds(now - start);
        last_report = now;
        mu_.Unlock();
        if (budget.on_progress) budget.on_progress(sum);
        mu_.Lock();
      }
      if (finished) break;
    }
    mu_.Unlock();
  }

  // After Serve: the games of both searches (their final reports).
  int64_t Evaluations() ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    return SumLocked().evaluations;
  }
  // After Serve: search `index`'s result, or nullopt when it did not run.
  std::optional<absl::StatusOr<Solution>> TakeResult(int index)
      ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    return std::move(results_[index]);
  }

 private:
  SolverProgress SumLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    SolverProgress sum;
    for (const SolverProgress& progress : latest_) {
      sum.evaluations += progress.evaluations;
      sum.best_normalised_return =
          std::max(sum.best_normalised_return, progress.best_normalised_return);
    }
    return sum;
  }

  absl::Mutex mu_;
  std::array<SolverProgress, kSearches> latest_ ABSL_GUARDED_BY(mu_);
  std::array<std::optional<absl::StatusOr<Solution>>, kSearches> results_
      ABSL_GUARDED_BY(mu_);
  int running_ ABSL_GUARDED_BY(mu_);
  int64_t asked_ ABSL_GUARDED_BY(mu_) = 0;     // questions put so far
  int64_t answered_ ABSL_GUARDED_BY(mu_) = 0;  // questions answered
  bool stop_ ABSL_GUARDED_BY(mu_) = false;     // the caller said stop
};

}  // namespace

absl::StatusOr<std::unique_ptr<RaceSolver>> RaceSolver::Create(
    const SolverSettings& settings) {
  SettingsReader reader("race", settings);
  ASSIGN_OR_RETURN(const SearchStart start, ReadSearchStart(reader));
  RETURN_IF_ERROR(reader.CheckNoUnknownKeys());
  return std::unique_ptr<RaceSolver>(new RaceSolver(start));
}

absl::StatusOr<Solution> RaceSolver::Solve(
    const std::shared_ptr<const game::Program>& program,
    const SolverBudget& budget) {
  RETURN_IF_ERROR(SearchBudget::Check(budget));
  const absl::Time start = absl::Now();
  // An evaluation limit of one leaves BRKGA none (0 would mean no limit).
  const int searches = budget.max_evaluations == 1 ? 1 : kSearches;
  // Both searches start from one play of the heuristic.
  ASSIGN_OR_RETURN(const std::optional<Solution> heuristic,
                   PlaySearchStart(start_, program, budget));
  const SolverSettings own_start = {{"start", "none"}};
  ASSIGN_OR_RETURN(std::unique_ptr<EvolutionSolver> es,
                   EvolutionSolver::Create(own_start));
  ASSIGN_OR_RETURN(std::unique_ptr<BrkgaSolver> brkga,
                   BrkgaSolver::Create(own_start));
  if (heuristic) {
    es->StartFrom(*heuristic);
    brkga->AddWarmStart(*heuristic);
  }
  std::array<std::unique_ptr<Solver>, kSearches> solvers = {std::move(es),
                                                            std::move(brkga)};
  const absl::Duration left = std::max(absl::ZeroDuration(),
                                       budget.wall_time - (absl::Now() - start));

  Race race(searches);
  std::array<SolverBudget, kSearches> budgets;
  for (int i = 0; i < searches; ++i) {
    SolverBudget& own = budgets[i];
    own.wall_time = left;
    own.threads = std::max(
        1, i == 0 ? budget.threads / 2 : budget.threads - budget.threads / 2);
    own.seed = budget.seed;
    if (budget.max_evaluations > 0) {
      own.max_evaluations = i == 0 ? (budget.max_evaluations + 1) / 2
                                   : budget.max_evaluations / 2;
    }
    own.on_progress = [&race, i](const SolverProgress& progress) {
      race.Progress(i, progress);
    };
    if (budget.stop_requested) {
      own.stop_requested = [&race] { return race.AskStop(); };
    }
    own.abandon_requested = budget.abandon_requested;
  }
  {
    std::array<std::jthread, kSearches> threads;  // joined at the brace
    for (int i = 0; i < searches; ++i) {
      threads[i] = std::jthread(
          [&, i] { race.Finish(i, solvers[i]->Solve(program, budgets[i])); });
    }
    race.Serve(budget, start);
  }

  BestSolution best;
  SolverSettings settings;
  for (int i = 0; i < searches; ++i) {
    std::optional<absl::StatusOr<Solution>> result = race.TakeResult(i);
    if (!result.has_value()) continue;
    if (!result->ok()) {
      return absl::Status(result->status().code(),
                          absl::StrCat(kSearchNames[i], " (in the race): ",
                                       result->status().message()));
    }
    const Solution& solution = **result;
    settings[kSearchNames[i]] = absl::StrCat(solution.normalised_return());
    // ES first: it keeps a tie.
    if (best.Improves(solution.return_us())) {
      settings["winner"] = kSearchNames[i];
    }
    best.Offer(solution);
  }
  return best.Finish(name(), settings, budget, race.Evaluations(),
                     absl::ToDoubleSeconds(absl::Now() - start));
}

absl::StatusOr<std::unique_ptr<Solver>> MakeRaceSolver(
    const SolverSettings& settings) {
  ASSIGN_OR_RETURN(auto solver, RaceSolver::Create(settings));
  return std::unique_ptr<Solver>(std::move(solver));
}

}  // namespace mmapzero::solvers
