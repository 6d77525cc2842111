// Demonstrations (MuZero Unplugged; the paper's MMap-MuZero-prod starts
// from the heuristic's plan): the solutions a learner imitates beside its
// replay, one unit for the learner service and the in-process solver, so
// both mix and pace them alike.
//  - Offer: thread-safe and cheap. A solution better than every one
//    offered before waits as the next demonstration (an older one still
//    waiting is dropped unseen). The in-process solver offers its seed
//    stage's solution, a resumed best and each new best of self-play; the
//    learner service the job's start solution and each best the
//    coordinator records.
//  - TakeDue, on the training thread before a step: replays the waiting
//    solution through the program (agent::DemonstrationFromSolution) when
//    due: the first at once, then at most one per
//    training.demonstration_interval_steps learner steps. Paced by learner
//    steps, not seconds: a replay observes every decision of the program,
//    so it is paced against the training it takes time from, on any
//    machine, and a run with a seed is reproducible. The newest
//    agent::kDemonstrationsKept are kept.
//  - Mix: while any are kept, the last round(training.demonstration_fraction
//    * batch_size) positions of a batch are replaced by positions sampled
//    from them. They ride along with replay batches: a learner never
//    trains on demonstrations alone, so the replay still paces it.
#ifndef MMAPZERO_COMMON_TRAINING_DEMONSTRATIONS_H_
#define MMAPZERO_COMMON_TRAINING_DEMONSTRATIONS_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/agent/batch_source.h"
#include "common/agent/replay_buffer.h"
#include "common/base/guarded.h"
#include "common/game/program.h"
#include "proto/muzero.pb.h"
#include "proto/solution.pb.h"

namespace mmapzero::training {

// One TakeDue that replayed a solution: what it was and what came of it.
struct DemonstrationReplay {
  double normalised_return = 0;
  std::string solver;          // the solution's solver
  int64_t steps = 0;           // decisions in its trajectory
  absl::Duration replay_time;  // the replay through the program
  absl::Status status;         // not OK: refused; nothing was added
  int64_t kept = 0;            // demonstrations held after it
};

// Counters for progress reports; a copy.
struct DemonstrationStats {
  double best_offered = 0;      // normalised return; 0 before any
  int64_t replayed = 0;         // demonstrations added
  int64_t mixed_positions = 0;  // batch positions taken from them
  std::string error;            // the last refused replay; "" after a good one
};

class Demonstrations {
 public:
  // `program` (null: offers are only counted, nothing is replayed) is the
  // game solutions are replayed on; `config` observes and scales them;
  // `seed` seeds the sampling of positions.
  Demonstrations(std::shared_ptr<const game::Program> program,
                 MuZeroConfig config, uint64_t seed);

  // Whether demonstrations take part at all (a program, and a positive
  // training.demonstration_fraction).
  bool enabled() const { return enabled_; }

  // Thread-safe. True when `solution` beats every solution offered before
  // (it now waits as the next demonstration).
  bool Offer(Solution solution);

  // Training thread: replays the waiting solution when one waits and
  // `learner_step` is due (see above); what happened, or nothing.
  std::optional<DemonstrationReplay> TakeDue(int64_t learner_step);

  // Training thread: replaces the tail of `batch` by demonstration
  // positions while any are kept; how many it replaced.
  int Mix(agent::Batch* batch);

  DemonstrationStats stats() const { return stats_.Get(); }

 private:
  struct Offered {
    std::optional<Solution> waiting;
    double best = -std::numeric_limits<double>::infinity();
  };

  const std::shared_ptr<const game::Program> program_;
  const MuZeroConfig config_;
  const bool enabled_;
  const int per_batch_;            // round(demonstration_fraction * batch_size)
  agent::ReplayBuffer kept_;       // training thread only
  int64_t last_replay_step_ = -1;  // training thread only; -1: none yet
  Guarded<Offered> offered_;
  Guarded<DemonstrationStats> stats_;
};

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_DEMONSTRATIONS_H_
