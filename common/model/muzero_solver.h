// The `muzero` solver (MMap-MuZero-prod, paper 4.3 and 5): runs the
// heuristic first (so the result is never worse than it), then MMap-MuZero
// self-play (self_play.h) on the workload until the budget runs out, and
// returns the best complete game's solution. Evaluations are complete
// games (the heuristic's included); max_evaluations is never exceeded.
//
// Learning (learn=1): finished games go into a ReplayBuffer
// (TrainingConfig.replay_size trajectories); a learner thread
// (common/model/learner.h) trains the master network on it and publishes
// its parameters every 10 learner steps (PublishedParameters, version =
// learner step); each actor adopts the newest version between moves. The
// learner's state ("step N, loss L", or why it is not available) is in the
// log and in Solution.solver.settings["learner"]. With learn=0 the actors
// play the initial network only, and with one actor, --threads 1 and an
// evaluation budget a seed gives the same solution every time; with the
// learner running, timing decides which parameters a move uses.
//
// Settings (MakeSolver("muzero", ...) or `--set key=value`):
//   config    a preset name ("cpu", default; "paper") or a MuZeroConfig JSON
//             file (features/config_presets.h);
//   any key with a dot, e.g. search.simulations=8: a config override,
//             applied in key order after the config (LoadMuZeroConfig);
//   actors    self-play threads, 1..64 (default 1);
//   learn     1 (default): train while playing; 0: self-play only;
//   log       1 (default): the config and a status line every few seconds on
//             stderr; 0: silent.
// Unknown keys and bad values are InvalidArgument naming them.
#ifndef MMAPZERO_COMMON_MODEL_MUZERO_SOLVER_H_
#define MMAPZERO_COMMON_MODEL_MUZERO_SOLVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/solvers/solver.h"
#include "proto/muzero.pb.h"

namespace mmapzero::model {

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
               int actors, bool log, bool learn)
      : config_(std::move(config)),
        effective_(std::move(effective)),
        actors_(actors),
        log_(log),
        learn_(learn) {}

  MuZeroConfig config_;
  solvers::SolverSettings effective_;  // recorded in Solution.solver
  int actors_;
  bool log_;
  bool learn_;
};

absl::StatusOr<std::unique_ptr<solvers::Solver>> MakeMuZeroSolver(
    const solvers::SolverSettings& settings);

}  // namespace mmapzero::model

#endif  // MMAPZERO_COMMON_MODEL_MUZERO_SOLVER_H_
