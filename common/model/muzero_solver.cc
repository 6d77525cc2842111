#include "common/model/muzero_solver.h"

#include <algorithm>
#include <atomic>
#include <iostream>
#include <stop_token>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/agent/replay_buffer.h"
#include "common/base/status_macros.h"
#include "common/features/config_presets.h"
#include "common/model/learner.h"
#include "common/model/networks.h"
#include "common/model/self_play.h"
#include "common/solvers/best_solution.h"
#include "common/solvers/search_budget.h"
#include "common/solvers/solver_settings.h"

namespace mmapzero::model {
namespace {

using solvers::SolverBudget;
using solvers::SolverSettings;

constexpr char kDefaultConfig[] = "cpu";
// Learner steps between published parameter versions.
constexpr int64_t kPublishInterval = 10;
// How often the Solve thread checks the budget, and logs a status line.
constexpr absl::Duration kPoll = absl::Milliseconds(20);
constexpr absl::Duration kLogInterval = absl::Seconds(5);

// What the actor threads found, read by the Solve thread. Games beyond
// `game_limit` (0: none) are not counted, offered or kept.
class SelfPlayResults {
 public:
  explicit SelfPlayResults(int64_t game_limit, int actors)
      : game_limit_(game_limit), per_actor_(actors) {}

  // From an actor's sink: counts and keeps one finished game; false when
  // it is beyond the limit (dropped).
  bool OnGame(const game::MMapGame& game) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    if (game_limit_ > 0 && games_ >= game_limit_) return false;
    ++games_;
    if (!game.infeasible()) best_.Offer(game);
    return true;
  }
  void SetCounters(int actor, const SelfPlayCounters& counters)
      ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    per_actor_[actor] = counters;
  }

  bool LimitReached() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    return game_limit_ > 0 && games_ >= game_limit_;
  }
  int64_t games() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    return games_;
  }
  solvers::BestSolution best() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    return best_;
  }
  // Moves, simulations and Drop-backups over all actors.
  SelfPlayCounters totals() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    SelfPlayCounters total;
    for (const SelfPlayCounters& c : per_actor_) {
      total.moves += c.moves;
      total.simulations += c.simulations;
      total.drop_backups += c.drop_backups;
    }
    total.games = games_;
    return total;
  }

 private:
  const int64_t game_limit_;
  mutable absl::Mutex mu_;
  int64_t games_ ABSL_GUARDED_BY(mu_) = 0;
  solvers::BestSolution best_ ABSL_GUARDED_BY(mu_);
  std::vector<SelfPlayCounters> per_actor_ ABSL_GUARDED_BY(mu_);
};

// The actor threads: each steps its SelfPlay until stopped or the game
// limit is reached, adopting newer published parameters between moves.
// The destructor stops and joins them.
class ActorThreads {
 public:
  ActorThreads(std::vector<std::unique_ptr<SelfPlay>> actors,
               const PublishedParameters* parameters, SelfPlayResults* results)
      : actors_(std::move(actors)) {
    for (size_t i = 0; i < actors_.size(); ++i) {
      threads_.emplace_back(
          [this, i, parameters, results](std::stop_token stop) {
            SelfPlay& actor = *actors_[i];
            while (!stop.stop_requested() && !results->LimitReached()) {
              actor.SyncParameters(*parameters);
              actor.Step();
              results->SetCounters(static_cast<int>(i), actor.counters());
            }
          });
    }
  }
  ~ActorThreads() { Stop(); }

  void Stop() {
    for (std::jthread& thread : threads_) thread.request_stop();
    for (std::jthread& thread : threads_) {
      if (thread.joinable()) thread.join();
    }
  }

 private:
  std::vector<std::unique_ptr<SelfPlay>> actors_;
  std::vector<std::jthread> threads_;  // last: joined before actors_ go
};

// The learner thread: trains while the replay has data, publishing the
// parameters every kPublishInterval steps, until stopped, out of
// training_steps, or a step fails (its error is kept). The destructor stops
// and joins it.
class LearnerThread {
 public:
  LearnerThread(Learner* learner, const agent::ReplayBuffer* replay,
                int64_t max_steps, PublishedParameters* parameters)
      : thread_([this, learner, replay, max_steps,
                 parameters](std::stop_token stop) {
          while (!stop.stop_requested() && learner->step() < max_steps) {
            if (replay->size() == 0) {
              absl::SleepFor(absl::Milliseconds(10));
              continue;
            }
            absl::StatusOr<LearnerStats> stats = learner->Step();
            if (!stats.ok()) {
              absl::MutexLock lock(&mu_);
              error_ = stats.status().ToString();
              return;
            }
            if (stats->step % kPublishInterval == 0) {
              parameters->Publish(learner->network(), stats->step);
            }
            absl::MutexLock lock(&mu_);
            step_ = stats->step;
            loss_ = stats->total;
          }
        }) {}
  ~LearnerThread() { Stop(); }

  void Stop() {
    thread_.request_stop();
    if (thread_.joinable()) thread_.join();
  }
  // "step N, loss L", or the error that stopped it.
  std::string State() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    if (!error_.empty()) return absl::StrCat("stopped: ", error_);
    return absl::StrFormat("step %d, loss %.4g", step_, loss_);
  }

 private:
  mutable absl::Mutex mu_;
  int64_t step_ ABSL_GUARDED_BY(mu_) = 0;
  double loss_ ABSL_GUARDED_BY(mu_) = 0;
  std::string error_ ABSL_GUARDED_BY(mu_);
  std::jthread thread_;  // last: started after the fields it writes
};

std::string Percent(double fraction) {
  return absl::StrFormat("%.4f", fraction);
}

}  // namespace

absl::StatusOr<std::unique_ptr<MuZeroSolver>> MuZeroSolver::Create(
    const SolverSettings& settings) {
  std::string preset = kDefaultConfig;
  std::vector<std::string> overrides;
  SolverSettings effective;
  SolverSettings rest;
  for (const auto& [key, value] : settings) {
    if (key == "config") {
      preset = value;
    } else if (key.find('.') != std::string::npos) {
      overrides.push_back(absl::StrCat(key, "=", value));
      effective[key] = value;
    } else {
      rest[key] = value;
    }
  }
  absl::StatusOr<MuZeroConfig> config =
      features::LoadMuZeroConfig(preset, overrides);
  if (!config.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "muzero: config=", preset, ": ", config.status().message()));
  }
  effective["config"] = preset;
  effective["preset"] = config->preset().empty() ? "none" : config->preset();
  solvers::SettingsReader reader("muzero", rest);
  ASSIGN_OR_RETURN(const int64_t actors, reader.GetInt("actors", 1, 1, 64));
  ASSIGN_OR_RETURN(const int64_t log, reader.GetInt("log", 1, 0, 1));
  ASSIGN_OR_RETURN(const int64_t learn, reader.GetInt("learn", 1, 0, 1));
  RETURN_IF_ERROR(reader.CheckNoUnknownKeys());
  effective["actors"] = absl::StrCat(actors);
  effective["learn"] = absl::StrCat(learn);
  return std::unique_ptr<MuZeroSolver>(
      new MuZeroSolver(*std::move(config), std::move(effective),
                       static_cast<int>(actors), log != 0, learn != 0));
}

absl::StatusOr<Solution> MuZeroSolver::Solve(
    const std::shared_ptr<const game::Program>& program,
    const SolverBudget& budget) {
  RETURN_IF_ERROR(solvers::SearchBudget::Check(budget));
  const absl::Time start = absl::Now();
  auto elapsed = [start] { return absl::ToDoubleSeconds(absl::Now() - start); };
  if (log_) {
    std::cerr << "muzero config:\n" << features::FormatConfig(config_) << "\n";
  }

  // MMap-MuZero-prod: the heuristic's solution is the floor.
  solvers::BestSolution best;
  int64_t heuristic_games = 0;
  std::string heuristic_state = "unavailable";
  absl::StatusOr<std::unique_ptr<solvers::Solver>> heuristic =
      solvers::MakeSolver("heuristic", {});
  if (heuristic.ok()) {
    SolverBudget stage = budget;
    stage.wall_time = budget.wall_time / 4;
    stage.on_progress = [&heuristic_games](const solvers::SolverProgress& p) {
      heuristic_games = p.evaluations;
    };
    ASSIGN_OR_RETURN(Solution solution, (*heuristic)->Solve(program, stage));
    heuristic_games = std::max<int64_t>(1, heuristic_games);
    solution.clear_solver();  // the result is muzero's, whoever found it
    best.Offer(solution);
    heuristic_state = Percent(solution.normalised_return());
  }
  auto report = [&](int64_t games, double best_return) {
    if (!budget.on_progress) return;
    budget.on_progress(
        solvers::SolverProgress{.elapsed_seconds = elapsed(),
                                .evaluations = heuristic_games + games,
                                .best_normalised_return = best_return});
  };
  report(0, best.normalised_return());

  // Self-play on what is left of the budget.
  int64_t game_limit = 0;
  if (budget.max_evaluations > 0) {
    game_limit = budget.max_evaluations - heuristic_games;
  }
  SelfPlayResults results(game_limit, actors_);
  std::string learner_state = "not started (no evaluations left)";
  if (budget.max_evaluations == 0 || game_limit > 0) {
    torch::set_num_threads(std::max(1, budget.threads / actors_));
    torch::manual_seed(budget.seed);
    const ObservationShape shape = ShapeOf(config_.features());
    ASSIGN_OR_RETURN(MuZeroNetwork network,
                     CreateNetwork(config_.network(), shape));
    PublishedParameters parameters;
    parameters.Publish(network, 0);
    agent::ReplayBuffer replay(config_.training().replay_size(),
                               solvers::MixSeed(budget.seed, 0x7e91a7, 0));
    std::unique_ptr<Learner> learner;
    learner_state = "off (learn=0)";
    if (learn_) {
      absl::StatusOr<std::unique_ptr<Learner>> created = Learner::Create(
          config_.training(), config_.search().discount(), network, &replay);
      if (created.ok()) {
        learner = *std::move(created);
      } else {
        learner_state =
            absl::StrCat("not available: ", created.status().message());
      }
    }
    std::vector<std::unique_ptr<SelfPlay>> actors;
    for (int a = 0; a < actors_; ++a) {
      ASSIGN_OR_RETURN(MuZeroNetwork copy,
                       CreateNetwork(config_.network(), shape));
      int64_t version = -1;
      parameters.CopyIfNewer(copy, &version);
      SelfPlay::Options options{
          .config = config_,
          .seed = solvers::MixSeed(budget.seed, 0x5e1f, a),
          .game_options = {},
          .sink = [&results, &replay, learning = learner != nullptr](
                      const game::MMapGame& game,
                      agent::Trajectory trajectory) {
            if (results.OnGame(game) && learning) {
              replay.Insert(std::move(trajectory));
            }
          }};
      ASSIGN_OR_RETURN(std::unique_ptr<SelfPlay> actor,
                       SelfPlay::Create(program, copy, std::move(options)));
      actor->set_parameter_version(version);
      actors.push_back(std::move(actor));
    }
    if (log_) {
      std::cerr << absl::StrFormat(
          "muzero: heuristic %s; self-play: %d actor(s) x %d games, %d "
          "simulations per move; learner: %s\n",
          heuristic_state, actors_, config_.search().batch_games(),
          config_.search().simulations(), learner ? "training" : learner_state);
    }
    std::unique_ptr<LearnerThread> learner_thread;
    if (learner) {
      learner_thread = std::make_unique<LearnerThread>(
          learner.get(), &replay, config_.training().training_steps(),
          &parameters);
    }
    auto learner_now = [&] {
      return learner_thread ? learner_thread->State() : learner_state;
    };
    ActorThreads threads(std::move(actors), &parameters, &results);
    absl::Time last_report = absl::Now();
    absl::Time last_log = absl::Now();
    while (absl::Now() - start < budget.wall_time && !results.LimitReached()) {
      absl::SleepFor(kPoll);
      if (absl::Now() - last_report >= absl::Seconds(1)) {
        last_report = absl::Now();
        report(results.games(), std::max(best.normalised_return(),
                                         results.best().normalised_return()));
      }
      if (log_ && absl::Now() - last_log >= kLogInterval) {
        last_log = absl::Now();
        const SelfPlayCounters c = results.totals();
        std::cerr << absl::StrFormat(
            "  muzero: %lld games, %lld moves, %lld simulations (%.0f/s), "
            "%lld drop-backups; learner: %s\n",
            static_cast<long long>(c.games), static_cast<long long>(c.moves),
            static_cast<long long>(c.simulations), c.simulations / elapsed(),
            static_cast<long long>(c.drop_backups), learner_now());
      }
    }
    threads.Stop();
    if (learner_thread) {
      learner_thread->Stop();
      learner_state = learner_thread->State();
    }
  }

  const SelfPlayCounters totals = results.totals();
  const solvers::BestSolution self_play_best = results.best();
  if (self_play_best.has_solution()) best.Offer(self_play_best.solution());
  if (!best.has_solution()) {
    return absl::DeadlineExceededError(
        "muzero: the budget allowed no complete game");
  }
  report(totals.games, best.normalised_return());
  if (log_) {
    std::cerr << absl::StrFormat(
        "muzero: done: %lld self-play games (best %s), heuristic %s; "
        "learner: %s\n",
        static_cast<long long>(totals.games),
        self_play_best.has_solution()
            ? Percent(self_play_best.normalised_return())
            : std::string("none"),
        heuristic_state, learner_state);
  }
  SolverSettings settings = effective_;
  settings["heuristic"] = heuristic_state;
  settings["self_play_games"] = absl::StrCat(totals.games);
  settings["self_play_best"] = self_play_best.has_solution()
                                   ? Percent(self_play_best.normalised_return())
                                   : "none";
  settings["simulations"] = absl::StrCat(totals.simulations);
  settings["learner"] = learner_state;
  return best.Finish(name(), settings, budget, heuristic_games + totals.games,
                     elapsed());
}

absl::StatusOr<std::unique_ptr<solvers::Solver>> MakeMuZeroSolver(
    const SolverSettings& settings) {
  ASSIGN_OR_RETURN(auto solver, MuZeroSolver::Create(settings));
  return std::unique_ptr<solvers::Solver>(std::move(solver));
}

}  // namespace mmapzero::model
