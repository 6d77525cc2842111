// The training loop, one for the learner service (learner/learner_job.h)
// and the in-process solver (muzero_solver.h). On the thread that calls
// Run, until it is stopped, reaches max_steps or is fenced, each round:
//   1. replays a due demonstration (demonstrations.h);
//   2. takes a batch from its BatchSource: the replay service's prefetch
//      queue, or the replay in memory with reanalysis
//      (replay_batch_source.h);
//   3. mixes demonstrations into it and takes one learner step;
//   4. publishes the parameters every publish_interval steps (version =
//      learner step), before the progress shows the step, so that no
//      report names a step without its parameters;
//   5. checkpoints every checkpoint_interval steps.
// When it ends it checkpoints (unless checkpoint_at_end is off) and
// publishes what it has not yet. The two
// paths differ only in where batches come from and where parameters and
// checkpoints go (TrainingSinks). A batch the learner refuses is skipped
// and counted; a failed checkpoint is kept in the progress and training
// goes on; a checkpoint refused as Aborted (a learner with a newer lease
// holds the folder, common/base/lease_fence.h) ends the loop, which then
// neither saves nor publishes again.
#ifndef MMAPZERO_COMMON_TRAINING_TRAINING_LOOP_H_
#define MMAPZERO_COMMON_TRAINING_TRAINING_LOOP_H_

#include <cstdint>
#include <functional>
#include <map>
#include <stop_token>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/agent/batch_source.h"
#include "common/base/guarded.h"
#include "common/model/networks.h"
#include "common/training/demonstrations.h"
#include "common/training/learner.h"
#include "common/training/training_progress.h"

namespace mmapzero::training {

struct TrainingLoopOptions {
  int64_t max_steps = 0;            // stop at this learner step; 0: never
  int64_t publish_interval = 10;    // learner steps between versions, >= 1
  int64_t checkpoint_interval = 0;  // 0: only when the loop ends
  // The learner step of a checkpoint already on disk (a resumed job's),
  // which the end need not write again; -1: none.
  int64_t saved_step = -1;
  // Whether the end checkpoints; off where the caller saves more than the
  // learner once the loop has stopped (the in-process solver: the best
  // solution and the games of all its actors).
  bool checkpoint_at_end = true;
  // How long one wait for a batch may block before stop is checked again.
  absl::Duration batch_poll = absl::Milliseconds(200);
};

// Where parameters and checkpoints go; each may be empty (none).
struct TrainingSinks {
  // The learner's network after `version` steps.
  std::function<void(const model::MuZeroNetwork& network, int64_t version)>
      publish;
  // Saves the learner; Aborted: fenced (see above).
  std::function<absl::Status(const Learner& learner)> checkpoint;
  // Asked before each round; while false no step is taken (the learner
  // service, when the worker's leases lapsed). Empty: always.
  std::function<bool()> may_step;
};

// Told what happens, on the loop's thread (health checks, metrics, logs).
// Every method does nothing unless overridden.
class TrainingObserver {
 public:
  virtual ~TrainingObserver() = default;
  // A round without a step: paused (may_step) or no batch in time.
  virtual void OnWait(const absl::Status& /*why*/) {}
  virtual void OnStep(const LearnerStats& /*stats*/,
                      absl::Duration /*waited*/) {}
  virtual void OnRefused(const absl::Status& /*status*/) {}
  virtual void OnPublished(int64_t /*version*/) {}
  virtual void OnCheckpoint(int64_t /*step*/, const absl::Status& /*saved*/) {}
  virtual void OnDemonstration(const DemonstrationReplay& /*replay*/) {}
  virtual void OnStopped(int64_t /*step*/, const std::string& /*reason*/) {}
};

class TrainingLoop {
 public:
  // `learner`, `source`, `demonstrations` and `observer` (null: none) are
  // not owned and outlive the loop.
  TrainingLoop(TrainingLoopOptions options, Learner* learner,
               agent::BatchSource* source, Demonstrations* demonstrations,
               TrainingSinks sinks, TrainingObserver* observer);

  // Publishes the learner's parameters as they are (the version a job or
  // run starts from). Before Run, or from Run's thread.
  void Publish();
  // The rounds above until `stop`, max_steps or a fence; then the end.
  void Run(std::stop_token stop);

  TrainingProgress progress() const;  // thread-safe
  // Blocks until Run returned or `timeout` passed; whether it returned.
  bool AwaitStopped(absl::Duration timeout) const;

 private:
  bool MaxStepsReached() const;
  // One round; `wait_start`: when the wait for this step's batch began.
  void Round(absl::Time* wait_start);
  void TakeDemonstration();
  void Checkpoint();
  void Finish();

  const TrainingLoopOptions options_;
  Learner* const learner_;
  agent::BatchSource* const source_;
  Demonstrations* const demonstrations_;
  const TrainingSinks sinks_;
  TrainingObserver* const observer_;
  TrainingObserver no_observer_;
  int64_t saved_step_;   // Run's thread only
  bool fenced_ = false;  // Run's thread only
  Guarded<TrainingProgress> progress_;
};

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_TRAINING_LOOP_H_
