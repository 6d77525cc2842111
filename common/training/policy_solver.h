// `--solver policy`: zero-shot play. A network's policy plays the program
// once, greedily (policy_play.h), and that game is the answer: no
// heuristic seed, no search, no local search, so it shows what the network
// alone knows and returns in seconds. Settings:
//   network  unset: the pretrained network mmapzero ships where it fits
//            the config (the cpu preset), else an untrained one; default:
//            the shipped network; a network file (a learner checkpoint's
//            network.pt, e.g.
//            DATA_DIR/learner/learner/job-000001-<uid>/network.pt); none:
//            an untrained network of the config's sizes, whose policy head
//            starts at zero, so it plays the first legal of Copy, NoCopy,
//            Drop: the floor a trained network must beat. The result's
//            `network` setting says which played.
//   simulations  0 (default): greedy on the policy; N (1-64): N simulations
//            of the cpu preset's real-game Gumbel search per decision
//            (policy_play.h's PlaySearched), slower by about that factor
//   samples  0 (default): the greedy game alone; N (1-4096): besides it, up
//            to N games drawn from the policy (PlaySampled, 16 at a time
//            in lockstep), fewer when the budget's wall time would run out
//            (the greedy game and the first 15 always play); the best game
//            is the answer. Not with simulations.
//   temperature  of the drawn games' softmax (default 1; > 0)
//   config   the MuZero config whose features the network was trained on
//            (cpu by default, paper, or a config JSON file); its feature
//            hash must be the network's (features/feature_hash.h)
// Thread-safety: as Solver.
#ifndef MMAPZERO_COMMON_TRAINING_POLICY_SOLVER_H_
#define MMAPZERO_COMMON_TRAINING_POLICY_SOLVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/solvers/solver.h"
#include "proto/muzero.pb.h"

namespace mmapzero::training {

class PolicySolver final : public solvers::Solver {
 public:
  // InvalidArgument for an unknown setting or a config that does not load
  // (the network itself is read by Solve).
  static absl::StatusOr<std::unique_ptr<PolicySolver>> Create(
      const solvers::SolverSettings& settings);

  // NotFound / DataLoss naming the network file when it cannot be read,
  // FailedPrecondition naming both hashes when it was trained on another
  // feature configuration.
  absl::StatusOr<Solution> Solve(
      const std::shared_ptr<const game::Program>& program,
      const solvers::SolverBudget& budget) override;
  std::string name() const override { return "policy"; }

 private:
  PolicySolver(MuZeroConfig config, std::string network, int simulations,
               int samples, double temperature,
               solvers::SolverSettings effective)
      : config_(std::move(config)),
        network_(std::move(network)),
        simulations_(simulations),
        samples_(samples),
        temperature_(temperature),
        effective_(std::move(effective)) {}

  // `status` with the solver and its config named.
  absl::Status Refused(const absl::Status& status) const;

  const MuZeroConfig config_;
  const std::string network_;  // as set: "", a file, "default" or "none"
  const int simulations_;      // 0: greedy
  const int samples_;          // drawn games besides the greedy one
  const double temperature_;   // of the drawn games
  const solvers::SolverSettings effective_;
};

absl::StatusOr<std::unique_ptr<solvers::Solver>> MakePolicySolver(
    const solvers::SolverSettings& settings);

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_POLICY_SOLVER_H_
