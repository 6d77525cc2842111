#include "common/model/muzero_solver.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <iostream>
#include <optional>
#include <stop_token>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/agent/demonstration.h"
#include "common/agent/replay_buffer.h"
#include "common/agent/self_play_results.h"
#include "common/base/guarded.h"
#include "common/base/status_macros.h"
#include "common/features/config_presets.h"
#include "common/model/compute_threads.h"
#include "common/model/learner.h"
#include "common/model/network_checkpoint.h"
#include "common/model/networks.h"
#include "common/model/reanalyser.h"
#include "common/model/run_checkpoint.h"
#include "common/model/self_play.h"
#include "common/solvers/best_solution.h"
#include "common/solvers/search_budget.h"
#include "common/solvers/seed_stage.h"
#include "common/solvers/solver_settings.h"

namespace mmapzero::model {
namespace {

using agent::SelfPlayResults;
using solvers::SolverBudget;
using solvers::SolverSettings;

// Learner steps between published parameter versions.
constexpr int64_t kPublishInterval = 10;
// How often the Solve thread checks the budget, and logs a status line.
constexpr absl::Duration kPoll = absl::Milliseconds(20);
constexpr absl::Duration kLogInterval = absl::Seconds(5);
// Self-play games averaged in the "recent" normalised return.
constexpr int kRecentGames = 10;
// New bests come many times a second early in a run, and a demonstration
// replays and observes the whole program: self-play's bests become one at
// most this often (the first best after the interval).
constexpr absl::Duration kDemonstrationInterval = absl::Seconds(1);

// Says yes at most once per interval (the first call after it); shared by
// the actor threads.
class DemonstrationPacer {
 public:
  explicit DemonstrationPacer(absl::Duration interval)
      : interval_(interval) {}
  bool Due() {
    const absl::Time now = absl::Now();
    return last_.Update([&](absl::Time& last) {
      if (now - last < interval_) return false;
      last = now;
      return true;
    });
  }

 private:
  const absl::Duration interval_;
  Guarded<absl::Time> last_{absl::InfinitePast()};
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
            int64_t best_seen = 0;
            while (!stop.stop_requested() && !results->LimitReached()) {
              actor.SyncParameters(*parameters);
              // Every actor starts games from the best of all of them.
              if (std::optional<Solution> best =
                      results->BestIfNewer(&best_seen)) {
                actor.OfferStart(*best);
              }
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
  // Each actor's parameter version, "v0,v1,..."; after Stop().
  std::string Versions() const {
    std::string versions;
    for (const auto& actor : actors_) {
      absl::StrAppend(&versions, versions.empty() ? "" : ",",
                      actor->parameter_version());
    }
    return versions;
  }

 private:
  std::vector<std::unique_ptr<SelfPlay>> actors_;
  std::vector<std::jthread> threads_;  // last: joined before actors_ go
};

// Periodic checkpoints from the learner thread: `save` (none: no
// checkpoints) every `interval` learner steps.
struct LearnerCheckpoints {
  int64_t interval = 1;
  std::function<absl::Status(const Learner&)> save;
};

// The learner thread: trains while the replay has data, publishing the
// parameters every kPublishInterval steps and saving checkpoints, until
// stopped, out of training_steps, or a step fails (its error is kept; a
// failed save is kept too, and training goes on). The destructor stops and
// joins it.
class LearnerThread {
 public:
  LearnerThread(Learner* learner, const agent::ReplayBuffer* replay,
                const agent::ReplayBuffer* demonstrations, int64_t max_steps,
                PublishedParameters* parameters, LearnerCheckpoints checkpoints)
      : state_(TrainingState{learner->step(), 0, "", ""}),
        thread_([this, learner, replay, demonstrations, max_steps, parameters,
                 checkpoints = std::move(checkpoints)](std::stop_token stop) {
          while (!stop.stop_requested() && learner->step() < max_steps) {
            if (replay->size() == 0 && demonstrations->size() == 0) {
              absl::SleepFor(absl::Milliseconds(10));
              continue;
            }
            absl::StatusOr<LearnerStats> stats = learner->Step();
            if (!stats.ok()) {
              state_.Update([&](TrainingState& state) {
                state.error = stats.status().ToString();
              });
              return;
            }
            if (stats->step % kPublishInterval == 0) {
              parameters->Publish(learner->network(), stats->step);
            }
            absl::Status saved;
            if (checkpoints.save && stats->step % checkpoints.interval == 0) {
              saved = checkpoints.save(*learner);
            }
            state_.Update([&](TrainingState& state) {
              state.step = stats->step;
              state.loss = stats->total;
              if (!saved.ok()) state.checkpoint_error = saved.ToString();
            });
          }
        }) {}
  ~LearnerThread() { Stop(); }

  void Stop() {
    thread_.request_stop();
    if (thread_.joinable()) thread_.join();
  }
  // "step N, loss L", or the error that stopped it.
  std::string State() const {
    const TrainingState state = state_.Get();
    if (!state.error.empty()) return absl::StrCat("stopped: ", state.error);
    return absl::StrFormat("step %d, loss %.4g", state.step, state.loss);
  }
  // The last failed periodic checkpoint's error; empty when none failed.
  std::string checkpoint_error() const {
    return state_.Read(
        [](const TrainingState& state) { return state.checkpoint_error; });
  }

 private:
  struct TrainingState {
    int64_t step = 0;
    double loss = 0;
    std::string error;
    std::string checkpoint_error;
  };
  Guarded<TrainingState> state_;
  std::jthread thread_;  // last: started after the fields it writes
};

std::string Percent(double fraction) {
  return absl::StrFormat("%.4f", fraction);
}

// Loads what checkpoint `dir` saved into `learner`, or without one the
// network alone; the learner step the run continues from.
absl::StatusOr<int64_t> LoadSaved(const std::string& dir,
                                  const RunProgress& saved, Learner* learner,
                                  MuZeroNetwork& network) {
  if (!HasLearnerCheckpoint(dir)) return learner ? learner->step() : saved.step;
  const absl::Status status =
      learner != nullptr ? learner->Load(LearnerCheckpointDir(dir))
                         : LoadCheckpoint(LearnerNetworkPath(dir), network);
  if (!status.ok()) {
    return absl::Status(status.code(), absl::StrCat("muzero: checkpoint ", dir,
                                                    ": ", status.message()));
  }
  return learner ? learner->step() : saved.step;
}

}  // namespace

absl::StatusOr<std::unique_ptr<MuZeroSolver>> MuZeroSolver::Create(
    const SolverSettings& settings) {
  features::MuZeroConfigSettings split =
      features::SplitMuZeroConfigSettings(settings);
  const std::string& preset = split.config;
  const std::vector<std::string>& overrides = split.overrides;
  SolverSettings& rest = split.rest;
  SolverSettings effective;
  for (const auto& [key, value] : settings) {
    if (key.find('.') != std::string::npos) effective[key] = value;
  }
  std::string checkpoint;
  if (const auto it = rest.find("checkpoint"); it != rest.end()) {
    if (it->second.empty()) {
      return absl::InvalidArgumentError(
          "muzero: checkpoint: needs a directory (checkpoint=DIR)");
    }
    checkpoint = it->second;
    effective["checkpoint"] = checkpoint;
    rest.erase(it);
  }
  absl::StatusOr<MuZeroConfig> config =
      features::LoadMuZeroConfig(preset, overrides);
  if (!config.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "muzero: config=", preset, ": ", config.status().message()));
  }
  effective["config"] = preset;
  effective["preset"] = config->preset().empty() ? "none" : config->preset();
  // The combination: another solver (brkga, es, portfolio) plays first for
  // seed_share of the budget in the heuristic's place.
  ASSIGN_OR_RETURN(const solvers::SeedStage seed_stage,
                   solvers::TakeSeedStage("muzero", rest));
  if (seed_stage.searches()) effective["seed_solver"] = seed_stage.solver;
  solvers::SettingsReader reader("muzero", rest);
  ASSIGN_OR_RETURN(const int64_t actors, reader.GetInt("actors", 0, 0, 64));
  ASSIGN_OR_RETURN(const int64_t log, reader.GetInt("log", 1, 0, 1));
  ASSIGN_OR_RETURN(const int64_t learn, reader.GetInt("learn", 1, 0, 1));
  ASSIGN_OR_RETURN(const int64_t heuristic,
                   reader.GetInt("heuristic", 1, 0, 1));
  RETURN_IF_ERROR(reader.CheckNoUnknownKeys());
  effective["actors"] = actors == 0 ? "auto" : absl::StrCat(actors);
  effective["learn"] = absl::StrCat(learn);
  return std::unique_ptr<MuZeroSolver>(
      new MuZeroSolver(*std::move(config), std::move(effective),
                       Options{.actors = static_cast<int>(actors),
                               .log = log != 0,
                               .learn = learn != 0,
                               .heuristic = heuristic != 0,
                               .seed_solver = seed_stage.solver,
                               .seed_share = seed_stage.share,
                               .checkpoint = std::move(checkpoint)}));
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
  // A checkpoint of another workload or size fails here, before any write.
  RunIdentity identity;
  std::optional<RunProgress> saved;
  SolverSettings run_settings;  // the checkpoint's, added to the result's
  if (!checkpoint_.empty()) {
    identity = IdentityOf(*program, config_);
    ASSIGN_OR_RETURN(saved, ReadRunCheckpoint(checkpoint_, identity));
    run_settings["resumed_step"] = "none";
    if (saved) {
      run_settings["resumed_step"] = absl::StrCat(saved->step);
      run_settings["resumed_games"] = absl::StrCat(saved->games);
    }
  }

  // MMap-MuZero-prod: the heuristic's solution is the floor.
  solvers::BestSolution best;
  int64_t heuristic_games = 0;
  std::string heuristic_state = "unavailable";
  // With seed_solver, that solver plays in the heuristic's place (the
  // combination; the result's settings say which part found the best).
  absl::StatusOr<std::unique_ptr<solvers::Solver>> heuristic =
      heuristic_ ? solvers::MakeSolver(seed_solver_, {})
                 : absl::FailedPreconditionError("off (heuristic=0)");
  if (!heuristic.ok()) heuristic_state = std::string(heuristic.status().message());
  if (heuristic.ok()) {
    SolverBudget stage = budget;
    stage.wall_time = budget.wall_time * seed_share_;
    stage.on_progress = [&heuristic_games](const solvers::SolverProgress& p) {
      heuristic_games = p.evaluations;
    };
    ASSIGN_OR_RETURN(const Solution solution,
                     (*heuristic)->Solve(program, stage));
    heuristic_games = std::max<int64_t>(1, heuristic_games);
    best.Offer(solution);
    heuristic_state = Percent(solution.normalised_return());
  }
  if (saved && saved->best) best.Offer(*saved->best);  // never lost
  auto report = [&](int64_t games, double best_return, double recent) {
    if (!budget.on_progress) return;
    budget.on_progress(
        solvers::SolverProgress{.elapsed_seconds = elapsed(),
                                .evaluations = heuristic_games + games,
                                .best_normalised_return = best_return,
                                .recent_normalised_return = recent});
  };
  report(0, best.normalised_return(), -1);

  // Self-play on what is left of the budget.
  int64_t game_limit = 0;
  if (budget.max_evaluations > 0) {
    game_limit = budget.max_evaluations - heuristic_games;
  }
  // actors=0 (auto): one per thread, less the learner's.
  const int actor_count =
      actors_ > 0 ? actors_ : std::max(1, budget.threads - (learn_ ? 1 : 0));
  SelfPlayResults results(game_limit, actor_count, kRecentGames);
  std::string learner_state = "not started (no evaluations left)";
  std::string actor_versions = "none";
  if (budget.max_evaluations == 0 || game_limit > 0) {
    // One LibTorch thread per calling thread: the networks are small and
    // the batches a few games, so intra-op threads gain little, and their
    // OpenMP barriers collapse when another process takes a core (medium
    // example, 2 cores beside one busy process: 85 moves/s with 2 threads
    // per op, 1,280 with 1). Parallelism comes from actors + the learner.
    model::SetComputeThreads(1);
    torch::manual_seed(budget.seed);
    const ObservationShape shape = ShapeOf(config_.features());
    ASSIGN_OR_RETURN(MuZeroNetwork network,
                     CreateNetwork(config_.network(), shape));
    PublishedParameters parameters;
    parameters.Publish(network, 0);
    agent::ReplayBuffer replay(config_.training().replay_size(),
                               solvers::MixSeed(budget.seed, 0x7e91a7, 0));
    // Demonstrations: the heuristic's plan, a resumed best and every new
    // best self-play game (the newest agent::kDemonstrationsKept).
    agent::ReplayBuffer demonstrations(agent::kDemonstrationsKept,
                                       solvers::MixSeed(budget.seed, 0xde0, 0));
    const bool demonstrate = config_.training().demonstration_fraction() > 0;
    auto demonstrate_solution = [&](const Solution& solution) {
      absl::StatusOr<agent::Trajectory> shown =
          agent::DemonstrationFromSolution(program, solution, config_);
      if (shown.ok()) demonstrations.Insert(*std::move(shown));
    };
    if (demonstrate && best.has_solution()) {
      demonstrate_solution(best.solution());
    }
    DemonstrationPacer pacer(kDemonstrationInterval);
    // From the actors: a new best game becomes a demonstration when due.
    auto demonstrate_game = [&demonstrate_solution, &pacer](
                                const game::MMapGame& game) {
      if (pacer.Due()) demonstrate_solution(game.ToSolution());
    };
    std::unique_ptr<Reanalyser> reanalyser;
    std::unique_ptr<Learner> learner;
    learner_state = "off (learn=0)";
    if (learn_) {
      // Reanalyse runs on the learner's thread with the learner's network.
      if (config_.training().reanalyse_fraction() > 0) {
        ASSIGN_OR_RETURN(reanalyser, Reanalyser::Create(config_.search(),
                                                        network, &replay));
      }
      absl::StatusOr<std::unique_ptr<Learner>> created =
          Learner::Create(config_.training(), config_.search().discount(),
                          network, &replay, reanalyser.get());
      if (created.ok()) {
        learner = *std::move(created);
        learner->set_demonstrations(&demonstrations);
      } else {
        learner_state =
            absl::StrCat("not available: ", created.status().message());
      }
    }
    int64_t start_step = 0;
    if (saved) {
      ASSIGN_OR_RETURN(start_step,
                       LoadSaved(checkpoint_, *saved, learner.get(), network));
      parameters.Publish(learner ? learner->network() : network, start_step);
      run_settings["resumed_step"] = absl::StrCat(start_step);
      run_settings["resumed_replay"] = absl::StrCat(replay.size());
      if (log_) {
        std::cerr << absl::StrFormat(
            "muzero: resumed from %s at learner step %d (%d replay games, "
            "best %s)\n",
            checkpoint_, start_step, replay.size(),
            saved->best ? Percent(saved->best->normalised_return()) : "none");
      }
    }
    // Saves `saving` (null: no learner), the best so far and the games.
    auto save = [&](const Learner* saving) {
      RunProgress progress;
      progress.step = start_step;
      progress.games = (saved ? saved->games : 0) + results.games();
      solvers::BestSolution all = best;  // not written while threads run
      const solvers::BestSolution found = results.best();
      if (found.has_solution()) all.Offer(found.solution());
      if (all.has_solution()) progress.best = all.solution();
      return WriteRunCheckpoint(checkpoint_, identity, progress, saving);
    };
    LearnerCheckpoints checkpoints;
    if (!checkpoint_.empty()) {
      checkpoints.interval = config_.training().checkpoint_interval();
      checkpoints.save = [&save](const Learner& l) { return save(&l); };
    }
    std::vector<std::unique_ptr<SelfPlay>> actors;
    for (int a = 0; a < actor_count; ++a) {
      ASSIGN_OR_RETURN(MuZeroNetwork copy,
                       CreateNetwork(config_.network(), shape));
      int64_t version = -1;
      parameters.CopyIfNewer(copy, &version);
      // A resumed run's actors play new games: (step, games) mixed in.
      uint64_t seed = solvers::MixSeed(budget.seed, 0x5e1f, a);
      if (saved) seed = solvers::MixSeed(seed, start_step, saved->games);
      SelfPlay::Options options{
          .config = config_,
          .seed = seed,
          .game_options = {},
          .sink = [&results, &replay, &demonstrate_game,
                   learning = learner != nullptr, demonstrate](
                      const game::MMapGame& game,
                      agent::Trajectory trajectory) {
            const SelfPlayResults::Counted counted =
                results.OnGame(game, trajectory);
            if (!counted.counted || !learning) return;
            replay.Insert(std::move(trajectory));
            if (counted.new_best && demonstrate) demonstrate_game(game);
          },
          // Games start from the heuristic's plan (or a resumed best)
          // until the agent's own games beat it.
          .start = best.has_solution() ? std::optional<Solution>(best.solution())
                                       : std::nullopt,
          .max_segment_steps = 0,  // whole games: no message limit here
          .solution_sink = [&results, &demonstrate_game,
                            learning = learner != nullptr,
                            demonstrate](const game::MMapGame& game) {
            if (results.OfferSolution(game) && learning && demonstrate) {
              demonstrate_game(game);
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
          heuristic_state, actor_count, config_.search().batch_games(),
          config_.search().simulations(), learner ? "training" : learner_state);
    }
    std::unique_ptr<LearnerThread> learner_thread;
    if (learner) {
      learner_thread = std::make_unique<LearnerThread>(
          learner.get(), &replay, &demonstrations,
          config_.training().training_steps(),
          &parameters, std::move(checkpoints));
    }
    auto learner_now = [&] {
      return learner_thread ? learner_thread->State() : learner_state;
    };
    ActorThreads threads(std::move(actors), &parameters, &results);
    absl::Time last_report = absl::Now();
    absl::Time last_log = absl::Now();
    SelfPlayCounters logged;  // totals at last_log, for the rates
    while (absl::Now() - start < budget.wall_time && !results.LimitReached()) {
      absl::SleepFor(kPoll);
      if (absl::Now() - last_report >= absl::Seconds(1)) {
        last_report = absl::Now();
        report(results.games(),
               std::max(best.normalised_return(),
                        results.best().normalised_return()),
               results.recent());
      }
      if (log_ && absl::Now() - last_log >= kLogInterval) {
        const double seconds = absl::ToDoubleSeconds(absl::Now() - last_log);
        last_log = absl::Now();
        const SelfPlayCounters c = results.totals();
        const double recent = results.recent();
        std::cerr << absl::StrFormat(
            "  muzero %5.0f s: %lld games, %.0f moves/s, %.0f simulations/s, "
            "%lld drop-backups, %lld best starts, %.0f%% of moves followed, "
            "%lld rejoined (%lld unchanged), %lld rebased (%lld better), "
            "window %lld; "
            "learner %s; best %.4f, recent %s\n",
            elapsed(), static_cast<long long>(c.games),
            (c.moves - logged.moves) / seconds,
            (c.simulations - logged.simulations) / seconds,
            static_cast<long long>(c.drop_backups),
            static_cast<long long>(c.best_starts),
            100.0 * static_cast<double>(c.followed_moves) /
                static_cast<double>(std::max<int64_t>(1, c.moves)),
            static_cast<long long>(c.rejoined),
            static_cast<long long>(c.unchanged),
            static_cast<long long>(c.rebased),
            static_cast<long long>(c.rebase_wins),
            static_cast<long long>(c.window), learner_now(),
            std::max(best.normalised_return(),
                     results.best().normalised_return()),
            recent < 0 ? std::string("-") : Percent(recent));
        logged = c;
      }
    }
    threads.Stop();
    actor_versions = threads.Versions();
    std::string checkpoint_error;
    if (learner_thread) {
      learner_thread->Stop();
      learner_state = learner_thread->State();
      checkpoint_error = learner_thread->checkpoint_error();
    }
    if (!checkpoint_.empty()) {  // the last one, with every thread stopped
      const absl::Status status = save(learner.get());
      if (!status.ok()) checkpoint_error = status.ToString();
      if (!checkpoint_error.empty()) {
        run_settings["checkpoint_error"] = checkpoint_error;
      }
      if (log_) {
        std::cerr << absl::StrFormat(
            "muzero: checkpoint %s: %s\n", checkpoint_,
            status.ok() ? absl::StrCat("saved at learner step ",
                                       learner ? learner->step() : start_step)
                        : absl::StrCat("save failed: ", status.ToString()));
      }
    }
  }

  const SelfPlayCounters totals = results.totals();
  const solvers::BestSolution self_play_best = results.best();
  if (self_play_best.has_solution()) best.Offer(self_play_best.solution());
  if (!best.has_solution()) {
    return absl::DeadlineExceededError(
        "muzero: the budget allowed no complete game");
  }
  report(totals.games, best.normalised_return(), results.recent());
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
  settings["actors"] = absl::StrCat(actor_count);
  settings["heuristic"] = heuristic_state;
  settings["self_play_games"] = absl::StrCat(totals.games);
  settings["self_play_best"] = self_play_best.has_solution()
                                   ? Percent(self_play_best.normalised_return())
                                   : "none";
  settings["simulations"] = absl::StrCat(totals.simulations);
  settings["learner"] = learner_state;
  settings["actor_versions"] = actor_versions;
  settings.insert(run_settings.begin(), run_settings.end());
  return best.Finish(name(), settings, budget, heuristic_games + totals.games,
                     elapsed());
}

absl::StatusOr<std::unique_ptr<solvers::Solver>> MakeMuZeroSolver(
    const SolverSettings& settings) {
  ASSIGN_OR_RETURN(auto solver, MuZeroSolver::Create(settings));
  return std::unique_ptr<solvers::Solver>(std::move(solver));
}

}  // namespace mmapzero::model
