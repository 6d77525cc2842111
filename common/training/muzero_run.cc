#include "common/training/muzero_run.h"

#include <algorithm>
#include <iostream>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "common/base/status_macros.h"
#include "common/features/config_presets.h"
#include "common/model/compute_threads.h"
#include "common/model/network_checkpoint.h"
#include "common/solvers/search_budget.h"
#include "common/training/initial_network.h"
#include "common/training/self_play.h"

namespace mmapzero::training {
namespace {

// Learner steps between published parameter versions.
constexpr int64_t kPublishInterval = 10;
// How often Play checks the budget, reports progress and logs a status line.
constexpr absl::Duration kPoll = absl::Milliseconds(20);
constexpr absl::Duration kReportInterval = absl::Seconds(1);
constexpr absl::Duration kLogInterval = absl::Seconds(5);
// Self-play games averaged in the "recent" normalised return.
constexpr int kRecentGames = 10;

std::string Percent(double fraction) {
  return absl::StrFormat("%.4f", fraction);
}

}  // namespace

MuZeroRun::MuZeroRun(std::shared_ptr<const game::Program> program,
                     MuZeroConfig config, MuZeroRunOptions options,
                     solvers::SolverBudget budget)
    : program_(std::move(program)),
      config_(std::move(config)),
      options_(std::move(options)),
      budget_(std::move(budget)),
      start_(absl::Now()),
      actor_count_(
          options_.actors > 0
              ? options_.actors
              : std::max(1, budget_.threads - (options_.learn ? 1 : 0))) {
  if (options_.log) {
    std::cerr << "muzero config:\n" << features::FormatConfig(config_) << "\n";
  }
}

MuZeroRun::~MuZeroRun() { StopThreads(); }

double MuZeroRun::Elapsed() const {
  return absl::ToDoubleSeconds(absl::Now() - start_);
}

absl::Status MuZeroRun::ReadCheckpoint() {
  if (options_.checkpoint.empty()) return absl::OkStatus();
  identity_ = IdentityOf(*program_, config_);
  ASSIGN_OR_RETURN(saved_, ReadRunCheckpoint(options_.checkpoint, identity_));
  run_settings_["resumed_step"] = "none";
  if (saved_) {
    run_settings_["resumed_step"] = absl::StrCat(saved_->step);
    run_settings_["resumed_games"] = absl::StrCat(saved_->games);
  }
  return absl::OkStatus();
}

absl::Status MuZeroRun::PlaySeedStage() {
  // MMap-MuZero-prod: the heuristic's solution is the floor. With
  // seed_solver, that solver plays in the heuristic's place (the
  // combination; the result's settings say which part found the best).
  absl::StatusOr<std::unique_ptr<solvers::Solver>> seed =
      options_.heuristic ? solvers::MakeSolver(options_.seed_solver, {})
                         : absl::FailedPreconditionError("off (heuristic=0)");
  if (!seed.ok()) seed_state_ = std::string(seed.status().message());
  if (seed.ok()) {
    solvers::SolverBudget stage = budget_;
    stage.wall_time = budget_.wall_time * options_.seed_share;
    stage.on_progress = [this](const solvers::SolverProgress& progress) {
      seed_games_ = progress.evaluations;
    };
    ASSIGN_OR_RETURN(const Solution solution, (*seed)->Solve(program_, stage));
    seed_games_ = std::max<int64_t>(1, seed_games_);
    best_.Offer(solution);
    seed_state_ = Percent(solution.normalised_return());
  }
  if (saved_ && saved_->best) best_.Offer(*saved_->best);  // never lost
  if (budget_.max_evaluations > 0) {
    game_limit_ = budget_.max_evaluations - seed_games_;
  }
  results_ = std::make_unique<agent::SelfPlayResults>(game_limit_, actor_count_,
                                                      kRecentGames);
  Report(0, best_.normalised_return(), -1);
  return absl::OkStatus();
}

bool MuZeroRun::GamesLeft() const {
  return budget_.max_evaluations == 0 || game_limit_ > 0;
}

absl::Status MuZeroRun::BuildLearner() {
  // One LibTorch thread per calling thread: the networks are small and
  // the batches a few games, so intra-op threads gain little, and their
  // OpenMP barriers collapse when another process takes a core (medium
  // example, 2 cores beside one busy process: 85 moves/s with 2 threads
  // per op, 1,280 with 1). Parallelism comes from actors + the learner.
  model::SetComputeThreads(1);
  torch::manual_seed(budget_.seed);
  ASSIGN_OR_RETURN(network_,
                   model::CreateNetwork(config_.network(),
                                        model::ShapeOf(config_.features())));
  ASSIGN_OR_RETURN(initial_network_,
                   LoadInitialNetwork(config_.training(), network_));
  parameters_.Publish(network_, 0);
  replay_ = std::make_unique<agent::ReplayBuffer>(
      config_.training().replay_size(),
      solvers::MixSeed(budget_.seed, 0x7e91a7, 0));
  // Demonstrations: the seed stage's plan, a resumed best and each new
  // best self-play game.
  demonstrations_ = std::make_unique<Demonstrations>(
      program_, config_, solvers::MixSeed(budget_.seed, 0xde0, 0));
  if (best_.has_solution()) demonstrations_->Offer(best_.solution());
  learner_state_ = "off (learn=0)";
  if (!options_.learn) return absl::OkStatus();
  // Reanalyse runs on the learner's thread with the learner's network.
  if (config_.training().reanalyse_fraction() > 0) {
    ASSIGN_OR_RETURN(reanalyser_, Reanalyser::Create(config_.search(), network_,
                                                     replay_.get()));
  }
  absl::StatusOr<std::unique_ptr<Learner>> learner = Learner::Create(
      config_.training(), config_.search().discount(), network_);
  if (learner.ok()) {
    learner_ = *std::move(learner);
  } else {
    learner_state_ =
        absl::StrCat("not available: ", learner.status().message());
  }
  return absl::OkStatus();
}

absl::Status MuZeroRun::Resume() {
  if (!saved_) return absl::OkStatus();
  const std::string& dir = options_.checkpoint;
  start_step_ = saved_->step;
  if (HasLearnerCheckpoint(dir)) {
    const absl::Status loaded =
        learner_ != nullptr
            ? learner_->Load(LearnerCheckpointDir(dir), replay_.get())
            : model::LoadCheckpoint(LearnerNetworkPath(dir), network_);
    if (!loaded.ok()) {
      return absl::Status(
          loaded.code(),
          absl::StrCat("muzero: checkpoint ", dir, ": ", loaded.message()));
    }
  }
  if (learner_ != nullptr) start_step_ = learner_->step();
  parameters_.Publish(learner_ ? learner_->network() : network_, start_step_);
  run_settings_["resumed_step"] = absl::StrCat(start_step_);
  run_settings_["resumed_replay"] = absl::StrCat(replay_->size());
  if (options_.log) {
    std::cerr << absl::StrFormat(
        "muzero: resumed from %s at learner step %d (%d replay games, best "
        "%s)\n",
        dir, start_step_, replay_->size(),
        saved_->best ? Percent(saved_->best->normalised_return()) : "none");
  }
  return absl::OkStatus();
}

absl::Status MuZeroRun::StartActors() {
  const bool learning = learner_ != nullptr;
  const bool demonstrate = learning && demonstrations_->enabled();
  std::vector<std::unique_ptr<SelfPlay>> actors;
  for (int a = 0; a < actor_count_; ++a) {
    ASSIGN_OR_RETURN(model::MuZeroNetwork copy,
                     model::CreateNetwork(config_.network(),
                                          model::ShapeOf(config_.features())));
    int64_t version = -1;
    parameters_.CopyIfNewer(copy, &version);
    // A resumed run's actors play new games: (step, games) mixed in.
    uint64_t seed = solvers::MixSeed(budget_.seed, 0x5e1f, a);
    if (saved_) seed = solvers::MixSeed(seed, start_step_, saved_->games);
    SelfPlay::Options options{
        .config = config_,
        .seed = seed,
        .game_options = {},
        .sink =
            [this, learning, demonstrate](const game::MMapGame& game,
                                          agent::Trajectory trajectory) {
              const agent::SelfPlayResults::Counted counted =
                  results_->OnGame(game, trajectory);
              if (!counted.counted || !learning) return;
              replay_->Insert(std::move(trajectory));
              if (counted.new_best && demonstrate) {
                demonstrations_->Offer(game.ToSolution());
              }
            },
        // Games start from the seed stage's plan (or a resumed best)
        // until the agent's own games beat it.
        .start = best_.has_solution()
                     ? std::optional<Solution>(best_.solution())
                     : std::nullopt,
        .max_segment_steps = 0,  // whole games: no message limit here
        .solution_sink =
            [this, demonstrate](const game::MMapGame& game) {
              if (results_->OfferSolution(game) && demonstrate) {
                demonstrations_->Offer(game.ToSolution());
              }
            }};
    ASSIGN_OR_RETURN(std::unique_ptr<SelfPlay> actor,
                     SelfPlay::Create(program_, copy, std::move(options)));
    actor->set_parameter_version(version);
    actors.push_back(std::move(actor));
  }
  if (options_.log) {
    std::cerr << absl::StrFormat(
        "muzero: heuristic %s; self-play: %d actor(s) x %d games, %d "
        "simulations per move; learner: %s\n",
        seed_state_, actor_count_, config_.search().batch_games(),
        config_.search().simulations(), learner_ ? "training" : learner_state_);
  }
  actors_ = std::make_unique<ActorThreads>(std::move(actors), &parameters_,
                                           results_.get());
  return absl::OkStatus();
}

void MuZeroRun::StartLearning() {
  if (learner_ == nullptr) return;
  source_ = std::make_unique<ReplayBatchSource>(
      config_.training(), replay_.get(), reanalyser_.get(), start_step_);
  TrainingSinks sinks{
      .publish =
          [this](const model::MuZeroNetwork& network, int64_t version) {
            parameters_.Publish(network, version);
          },
      .checkpoint = nullptr,
      .may_step = nullptr};
  if (!options_.checkpoint.empty()) {
    sinks.checkpoint = [this](const Learner& learner) {
      return SaveCheckpoint(&learner);
    };
  }
  loop_ = std::make_unique<TrainingLoop>(
      TrainingLoopOptions{
          .max_steps = config_.training().training_steps(),
          .publish_interval = kPublishInterval,
          .checkpoint_interval = config_.training().checkpoint_interval(),
          .saved_step = -1,
          // Stop saves once every thread has stopped: the best and the
          // games of all actors with the learner.
          .checkpoint_at_end = false,
          .batch_poll = kPoll},
      learner_.get(), source_.get(), demonstrations_.get(), std::move(sinks),
      /*observer=*/nullptr);
  learning_ = std::jthread([this](std::stop_token stop) { loop_->Run(stop); });
}

void MuZeroRun::Play() {
  absl::Time last_report = absl::Now();
  absl::Time last_log = absl::Now();
  while (absl::Now() - start_ < budget_.wall_time &&
         !results_->LimitReached()) {
    absl::SleepFor(kPoll);
    if (absl::Now() - last_report >= kReportInterval) {
      last_report = absl::Now();
      Report(results_->games(), BestReturn(), results_->recent());
    }
    if (options_.log && absl::Now() - last_log >= kLogInterval) {
      LogStatus(absl::Now() - last_log);
      last_log = absl::Now();
    }
  }
}

void MuZeroRun::Stop() {
  if (stopped_) return;
  stopped_ = true;
  StopThreads();
  SaveLastCheckpoint();
}

void MuZeroRun::StopThreads() {
  if (actors_ != nullptr) {
    actors_->Stop();
    actor_versions_ = actors_->Versions();
    actors_.reset();
  }
  if (learning_.joinable()) {
    learning_.request_stop();
    learning_.join();
    learner_state_ = LearnerState();
  }
}

void MuZeroRun::SaveLastCheckpoint() {
  if (options_.checkpoint.empty() || network_.is_empty()) return;
  const absl::Status saved = SaveCheckpoint(learner_.get());
  std::string error = saved.ok() ? "" : saved.ToString();
  if (error.empty() && loop_ != nullptr) {  // a periodic one that failed
    error = loop_->progress().checkpoint_error;
  }
  if (!error.empty()) run_settings_["checkpoint_error"] = error;
  if (options_.log) {
    std::cerr << absl::StrFormat(
        "muzero: checkpoint %s: %s\n", options_.checkpoint,
        saved.ok() ? absl::StrCat("saved at learner step ",
                                  learner_ ? learner_->step() : start_step_)
                   : absl::StrCat("save failed: ", saved.ToString()));
  }
}

absl::Status MuZeroRun::SaveCheckpoint(const Learner* learner) {
  RunProgress progress;
  progress.step = start_step_;
  progress.games = (saved_ ? saved_->games : 0) + results_->games();
  solvers::BestSolution all = best_;  // not written while threads run
  const solvers::BestSolution found = results_->best();
  if (found.has_solution()) all.Offer(found.solution());
  if (all.has_solution()) progress.best = all.solution();
  return WriteRunCheckpoint(options_.checkpoint, identity_, progress, learner,
                            replay_.get());
}

double MuZeroRun::BestReturn() const {
  return std::max(best_.normalised_return(),
                  results_->best().normalised_return());
}

void MuZeroRun::Report(int64_t games, double best_return, double recent) const {
  if (!budget_.on_progress) return;
  budget_.on_progress(
      solvers::SolverProgress{.elapsed_seconds = Elapsed(),
                              .evaluations = seed_games_ + games,
                              .best_normalised_return = best_return,
                              .recent_normalised_return = recent});
}

std::string MuZeroRun::LearnerState() const {
  if (loop_ == nullptr) return learner_state_;
  TrainingProgress progress = loop_->progress();
  std::string state = absl::StrFormat("step %d, loss %.4g", progress.step,
                                      progress.losses["total"]);
  if (progress.skipped_batches > 0) {
    absl::StrAppend(&state, ", ", progress.skipped_batches,
                    " batches refused (last: ", progress.batch_error, ")");
  }
  return state;
}

void MuZeroRun::LogStatus(absl::Duration since_last) {
  const double seconds = absl::ToDoubleSeconds(since_last);
  const agent::SelfPlayCounters c = results_->totals();
  const double recent = results_->recent();
  std::cerr << absl::StrFormat(
      "  muzero %5.0f s: %lld games, %.0f moves/s, %.0f simulations/s, "
      "%lld drop-backups, %lld best starts, %.0f%% of moves followed, "
      "%lld rejoined (%lld unchanged), %lld rebased (%lld better), "
      "window %lld; learner %s; best %.4f, recent %s\n",
      Elapsed(), static_cast<long long>(c.games),
      (c.moves - logged_.moves) / seconds,
      (c.simulations - logged_.simulations) / seconds,
      static_cast<long long>(c.drop_backups),
      static_cast<long long>(c.best_starts),
      100.0 * static_cast<double>(c.followed_moves) /
          static_cast<double>(std::max<int64_t>(1, c.moves)),
      static_cast<long long>(c.rejoined), static_cast<long long>(c.unchanged),
      static_cast<long long>(c.rebased), static_cast<long long>(c.rebase_wins),
      static_cast<long long>(c.window), LearnerState(), BestReturn(),
      recent < 0 ? std::string("-") : Percent(recent));
  logged_ = c;
}

absl::StatusOr<Solution> MuZeroRun::Finish(const std::string& solver,
                                           solvers::SolverSettings settings) {
  Stop();
  const agent::SelfPlayCounters totals = results_->totals();
  const solvers::BestSolution self_play_best = results_->best();
  if (self_play_best.has_solution()) best_.Offer(self_play_best.solution());
  if (!best_.has_solution()) {
    return absl::DeadlineExceededError(
        "muzero: the budget allowed no complete game");
  }
  Report(totals.games, best_.normalised_return(), results_->recent());
  const std::string self_play =
      self_play_best.has_solution()
          ? Percent(self_play_best.normalised_return())
          : std::string("none");
  if (options_.log) {
    std::cerr << absl::StrFormat(
        "muzero: done: %lld self-play games (best %s), heuristic %s; "
        "learner: %s\n",
        static_cast<long long>(totals.games), self_play, seed_state_,
        learner_state_);
  }
  settings["actors"] = absl::StrCat(actor_count_);
  settings["heuristic"] = seed_state_;
  for (const agent::ReportedCount& count : agent::ReportedCounts(totals)) {
    settings[count.name] = absl::StrCat(count.value);
  }
  settings["self_play_best"] = self_play;
  settings["simulations"] = absl::StrCat(totals.simulations);
  settings["learner"] = learner_state_;
  settings["actor_versions"] = actor_versions_;
  settings["initial_network"] = initial_network_;
  settings.insert(run_settings_.begin(), run_settings_.end());
  return best_.Finish(solver, settings, budget_, seed_games_ + totals.games,
                      Elapsed());
}

}  // namespace mmapzero::training
