// One in-process `muzero` solve (muzero_solver.h says what it does and
// which settings it takes), as the named steps MuZeroSolver::Solve
// composes:
//   ReadCheckpoint  a checkpoint of another workload or size fails here,
//                   before anything is written;
//   PlaySeedStage   the heuristic (or seed_solver) first: the floor, the
//                   first demonstration and the games' first start;
//   BuildLearner    network, replay, demonstrations and, with learn=1, the
//                   learner (and reanalyser);
//   Resume          a checkpoint's learner, replay and network, if any;
//   StartActors     self-play threads (actor_threads.h);
//   StartLearning   the training loop (training_loop.h, the learner
//                   service's loop) on a thread of its own, over the replay
//                   in memory with reanalysis (replay_batch_source.h);
//   Play            until the budget or the game limit, reporting progress
//                   and logging a status line every few seconds;
//   Stop            the actors, then the learner (its last checkpoint);
//   Finish          the best solution with the run's settings.
// Not thread-safe: one Solve drives a run; its threads are its own.
#ifndef MMAPZERO_COMMON_TRAINING_MUZERO_RUN_H_
#define MMAPZERO_COMMON_TRAINING_MUZERO_RUN_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/agent/replay_buffer.h"
#include "common/agent/self_play_results.h"
#include "common/game/program.h"
#include "common/model/networks.h"
#include "common/solvers/best_solution.h"
#include "common/solvers/solver.h"
#include "common/training/actor_threads.h"
#include "common/training/demonstrations.h"
#include "common/training/learner.h"
#include "common/training/published_parameters.h"
#include "common/training/reanalyser.h"
#include "common/training/replay_batch_source.h"
#include "common/training/run_checkpoint.h"
#include "common/training/training_loop.h"
#include "proto/muzero.pb.h"
#include "proto/solution.pb.h"

namespace mmapzero::training {

// The solver's settings that shape a run (muzero_solver.h).
struct MuZeroRunOptions {
  int actors = 0;  // 0: one per solver thread less the learner's
  bool log = true;
  bool learn = true;
  // The heuristic's plan: the floor (MMap-MuZero-prod), a demonstration
  // and a start state. Off: the agent's own games alone.
  bool heuristic = true;
  // The solver in the heuristic's place and its share of the budget.
  std::string seed_solver = "heuristic";
  double seed_share = 0.5;
  std::string checkpoint;  // empty: none
};

class MuZeroRun {
 public:
  // Logs the config (with options.log). `budget` must have passed
  // SearchBudget::Check.
  MuZeroRun(std::shared_ptr<const game::Program> program, MuZeroConfig config,
            MuZeroRunOptions options, solvers::SolverBudget budget);
  ~MuZeroRun();  // stops the threads; saves nothing

  absl::Status ReadCheckpoint();
  absl::Status PlaySeedStage();
  // Whether the budget leaves games for self-play after the seed stage.
  bool GamesLeft() const;
  absl::Status BuildLearner();
  absl::Status Resume();
  absl::Status StartActors();
  void StartLearning();
  void Play();
  // Stops the actors, then the learner, and saves the checkpoint's last
  // state; idempotent (Finish calls it).
  void Stop();
  // The best solution, its settings `settings` plus the run's; the
  // DeadlineExceeded when no game was complete.
  absl::StatusOr<Solution> Finish(const std::string& solver,
                                  solvers::SolverSettings settings);

 private:
  double Elapsed() const;
  // The best of the seed stage, the checkpoint and self-play so far.
  double BestReturn() const;
  void Report(int64_t games, double best_return, double recent) const;
  void LogStatus(absl::Duration since_last);
  // The learner's state: "step N, loss L" (and refused batches), or why
  // there is none.
  std::string LearnerState() const;
  // Saves the run (best, games, and `learner` with the replay when given).
  absl::Status SaveCheckpoint(const Learner* learner);
  void StopThreads();
  // The checkpoint's last save, once every thread has stopped.
  void SaveLastCheckpoint();

  const std::shared_ptr<const game::Program> program_;
  const MuZeroConfig config_;
  const MuZeroRunOptions options_;
  const solvers::SolverBudget budget_;
  const absl::Time start_;
  const int actor_count_;

  // ReadCheckpoint.
  RunIdentity identity_;
  std::optional<RunProgress> saved_;
  solvers::SolverSettings run_settings_;  // added to the result's
  // PlaySeedStage.
  solvers::BestSolution best_;
  int64_t seed_games_ = 0;
  std::string seed_state_ = "unavailable";
  int64_t game_limit_ = 0;  // self-play games; 0: no limit
  std::unique_ptr<agent::SelfPlayResults> results_;
  // BuildLearner, Resume.
  model::MuZeroNetwork network_{nullptr};
  // What the network started from (initial_network.h); a result setting.
  std::string initial_network_;
  PublishedParameters parameters_;
  std::unique_ptr<agent::ReplayBuffer> replay_;
  std::unique_ptr<Demonstrations> demonstrations_;
  std::unique_ptr<Reanalyser> reanalyser_;
  std::unique_ptr<Learner> learner_;
  std::string learner_state_ = "not started (no evaluations left)";
  int64_t start_step_ = 0;
  // StartActors, StartLearning, Play.
  std::unique_ptr<ActorThreads> actors_;
  std::string actor_versions_ = "none";
  std::unique_ptr<ReplayBatchSource> source_;
  std::unique_ptr<TrainingLoop> loop_;
  std::jthread learning_;           // runs loop_
  agent::SelfPlayCounters logged_;  // totals at the last status line
  bool stopped_ = false;
};

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_MUZERO_RUN_H_
