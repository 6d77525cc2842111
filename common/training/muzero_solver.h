// The `muzero` solver (MMap-MuZero-prod, paper 4.3 and 5): runs the
// heuristic first (so the result is never worse than it), then MMap-MuZero
// self-play (self_play.h) on the workload until the budget runs out, and
// returns the best complete game's solution. Evaluations are complete
// games (the heuristic's included); max_evaluations is never exceeded.
//
// Learning (learn=1): finished games go into a ReplayBuffer
// (TrainingConfig.replay_size trajectories); on a thread of its own the
// training loop the learner service runs (training_loop.h) trains the
// master network on it, with reanalysis and demonstrations, and publishes
// its parameters every 10 learner steps (PublishedParameters, version =
// learner step); each actor adopts the newest version between moves. The
// steps of a solve are MuZeroRun's (muzero_run.h). The
// learner's state ("step N, loss L", or why it is not available) is in the
// log and in Solution.solver.settings["learner"]. With learn=0 the actors
// play the initial network only, and with one actor, --threads 1 and an
// evaluation budget a seed gives the same solution every time; with the
// learner running, timing decides which parameters a move uses.
//
// Checkpoints (checkpoint=DIR; run_checkpoint.h): the learner thread saves
// the learner (network, Adam state, step, replay with its sampler), the best
// solution so far and the games played into DIR every
// training.checkpoint_interval learner steps, and Solve saves once more when
// the budget is over (with learn=0: only then, without a learner). A run
// whose DIR already holds a checkpoint loads it first, says "muzero:
// resumed from DIR at learner step N (R replay games, best X)" and goes on:
// the learner continues from step N, the saved best is a floor like the
// heuristic's, and the actors' seeds mix in (N, games played before) so a
// resumed run plays new games. A checkpoint of another workload (name,
// buffer count, fingerprint) or of other network / feature sizes is
// FailedPrecondition naming DIR and the mismatch, before anything is
// written. Settings record checkpoint and resumed_step ("none" for a fresh
// DIR), plus resumed_games / resumed_replay when resumed; a failed save is
// logged and recorded as checkpoint_error, and the run goes on.
//
// Settings (MakeSolver("muzero", ...) or `--set key=value`):
//   config    a preset name ("cpu", default; "paper") or a MuZeroConfig JSON
//             file (features/config_presets.h);
//   any key with a dot, e.g. search.simulations=8: a config override,
//             applied in key order after the config (LoadMuZeroConfig);
//   actors    self-play threads, 1..64, or 0 (default): one per solver
//             thread less the learner's (--threads 2: one actor + learner);
//   learn     1 (default): train while playing; 0: self-play only;
//   log       1 (default): the config and a status line every few seconds on
//             stderr; 0: silent;
//   checkpoint  a directory to save to and resume from (default: none).
// Solution.solver.settings also lists actor_versions: the parameter version
// (learner step) each actor played its last move with.
// Unknown keys and bad values are InvalidArgument naming them.
#ifndef MMAPZERO_COMMON_TRAINING_MUZERO_SOLVER_H_
#define MMAPZERO_COMMON_TRAINING_MUZERO_SOLVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/solvers/solver.h"
#include "common/training/muzero_run.h"
#include "proto/muzero.pb.h"

namespace mmapzero::training {

class MuZeroSolver : public solvers::Solver {
 public:
  static absl::StatusOr<std::unique_ptr<MuZeroSolver>> Create(
      const solvers::SolverSettings& settings);

  absl::StatusOr<Solution> Solve(
      const std::shared_ptr<const game::Program>& program,
      const solvers::SolverBudget& budget) override;
  std::string name() const override { return "muzero"; }

  const MuZeroConfig& config() const { return config_; }

 private:
  MuZeroSolver(MuZeroConfig config, solvers::SolverSettings effective,
               MuZeroRunOptions options)
      : config_(std::move(config)),
        effective_(std::move(effective)),
        options_(std::move(options)) {}

  MuZeroConfig config_;
  solvers::SolverSettings effective_;  // recorded in Solution.solver
  MuZeroRunOptions options_;
};

absl::StatusOr<std::unique_ptr<solvers::Solver>> MakeMuZeroSolver(
    const solvers::SolverSettings& settings);

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_MUZERO_SOLVER_H_
