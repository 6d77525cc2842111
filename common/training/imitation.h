// Imitation pretraining (behaviour cloning): a network learns to play as
// given solutions play their programs, before any self-play. Each
// solution (the heuristic's plan, or a better one found by search) is
// replayed through its program into a trajectory
// (agent::DemonstrationFromSolution); the learner then trains on
// positions drawn from all of them, every program equally often whatever
// its length, with the solution's action as the policy target, always
// (not gated by self-imitation as a job's demonstrations are: here there
// is no self-play to prefer), and its exact discounted returns-to-go as
// value targets.
//
// Why: a network pretrained by chained self-play jobs alone plays its own
// training programs far worse than the heuristic when it plays greedily
// (the Gumbel targets of a few simulations barely separate actions whose
// values differ little, and 25 % of a batch of self-imitation rarely
// fires), so it carries little to a new program. A network that has
// cloned good plans over many programs starts a job, or plays zero-shot,
// from a plan of that quality.
//
// Thread-safety: one thread drives Imitate; it owns the network while it
// runs.
#ifndef MMAPZERO_COMMON_TRAINING_IMITATION_H_
#define MMAPZERO_COMMON_TRAINING_IMITATION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/game/program.h"
#include "common/model/networks.h"
#include "proto/muzero.pb.h"
#include "proto/solution.pb.h"

namespace mmapzero::training {

// One program and the solution to imitate on it.
struct ImitationExample {
  std::string name;  // for messages and reports
  std::shared_ptr<const game::Program> program;
  Solution solution;
};

struct ImitationProgress {
  int64_t step = 0;
  int64_t steps = 0;       // in all
  double seconds = 0;      // since training began
  double policy_loss = 0;  // the last step's
  double value_loss = 0;
};

// Per program: how often the trained network's greedy choice (the most
// likely legal action) is the solution's, over every decision of it.
struct ImitationAgreement {
  std::string name;
  int64_t decisions = 0;
  double agreement = 0;  // in [0, 1]
};

struct ImitationOptions {
  int64_t steps = 2000;  // learner steps, each of training.batch_size
  uint64_t seed = 1;
  int64_t report_every = 100;  // steps between on_progress calls
  std::function<void(const ImitationProgress&)> on_progress;
};

struct ImitationResult {
  int64_t positions = 0;  // decisions of all the solutions together
  std::vector<ImitationAgreement> before;  // the network as given
  std::vector<ImitationAgreement> after;   // after training
  double seconds = 0;
};

// Trains `network` (built for config.features(); trained in place) on
// `examples` with config.training's batch size, unroll, td steps,
// learning rate, weight decay and loss weights (`mmapctl imitate` sets
// the value and reward loss weights to 0.1 unless its config does).
// InvalidArgument naming the example when its solution does not replay on its
// program, or when there are none.
absl::StatusOr<ImitationResult> Imitate(
    const std::vector<ImitationExample>& examples, const MuZeroConfig& config,
    model::MuZeroNetwork network, const ImitationOptions& options);

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_IMITATION_H_
