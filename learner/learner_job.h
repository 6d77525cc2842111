// One job's training in the learner service (docs/protocols.md): builds the
// network from the job's MuZeroConfig (range-checked; a bare preset
// reference is expanded, features/config_presets.h) on the training device
// (CUDA when LibTorch has it, else the CPU), resumes from the job's checkpoint
// directory when one exists (a lease that passed from another learner
// continues at the saved step), then on a thread of its own takes batches
// from its BatchSource and trains (Learner::Step(positions)) until the
// job's learner-step budget is reached or Stop():
//  - every `publish_interval` steps the parameters are serialised
//    (network_checkpoint.h, "torch-archive-v1") and published to the
//    ParameterService, versioned by the step (version 0 at the start);
//  - every `checkpoint_interval` steps, and when the loop ends (budget,
//    Stop on SIGTERM or lease loss), the learner checkpoint (network, Adam
//    state, step; no replay: it lives in the replay service) is written to
//    `checkpoint_dir` (learner_checkpoint.h: atomic through .tmp/.old).
// With a lease epoch (the coordinator's number for this grant of the job's
// learner lease), the job claims the checkpoint folder's fence before it
// resumes and saves only under it (common/base/lease_fence.h): a learner
// whose lease passed to another stops at its next save instead of
// overwriting its successor's checkpoint (progress().fenced).
// A batch the learner refuses (bad window) is skipped and counted; a
// failed periodic checkpoint is kept in progress() and training goes on.
//
// Demonstrations (common/agent/demonstration.h; MuZero Unplugged, as the
// in-process solver does): OfferDemonstration hands the job a solution
// better than any offered before (the job's start solution, then each new
// best the coordinator records); the thread replays the newest one through
// the job's program before its next step (at most one per
// demonstration_interval; the first at once) and keeps the newest
// agent::kDemonstrationsKept. While it holds any, the last
// round(training.demonstration_fraction * batch) positions of every replay
// batch are replaced by positions of the demonstrations. They ride along
// with replay batches: the learner never trains on demonstrations alone,
// so the replay's rate limiter still paces it.
#ifndef MMAPZERO_LEARNER_LEARNER_JOB_H_
#define MMAPZERO_LEARNER_LEARNER_JOB_H_

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/agent/replay_buffer.h"
#include "common/base/guarded.h"
#include "common/game/program.h"
#include "common/model/learner.h"
#include "learner/learner_metrics.h"
#include "proto/muzero.pb.h"
#include "proto/solution.pb.h"
#include "worker/batch_source.h"
#include "worker/parameter_store.h"

namespace mmapzero::learner {

struct LearnerJobOptions {
  std::string job_id;
  MuZeroConfig config;
  int64_t steps_budget = 0;       // stop at this step; 0: no limit
  std::string checkpoint_dir;     // "": no checkpoints
  int64_t publish_interval = 10;  // steps between snapshots, >= 1
  // Steps between checkpoints; 0: the config's
  // training.checkpoint_interval (0 there too: only when the loop ends).
  int64_t checkpoint_interval = 0;
  torch::Device device = torch::kCPU;
  // This grant of the learner lease (Assignment.lease_epoch); 0: unfenced
  // (a single learner, tests).
  int64_t lease_epoch = 0;
  // Asked before each step; while false (the worker's leases lapsed, e.g.
  // the process was paused past them) no step is taken. Empty: always.
  std::function<bool()> lease_live = nullptr;
  // How long one wait for a batch may block before stop is checked again.
  absl::Duration batch_poll = absl::Milliseconds(200);
  // The job's program (the assignment's workload), which demonstrations
  // are replayed on; null: none are (offers only note their return).
  std::shared_ptr<const game::Program> program = nullptr;
  // At most one demonstration replayed per interval (the newest offer
  // waits): a replay observes every decision of the program, and a niced
  // learner on two cores gets a fraction of one (10,000 buffers: replays
  // every 2 s took a fifth of its cycles and halved its matrix work).
  absl::Duration demonstration_interval = absl::Seconds(10);
};

// Where the job stands; a copy.
struct LearnerProgress {
  int64_t step = 0;
  int64_t resumed_step = 0;              // the step training started from
  int64_t parameter_version = -1;        // last published
  std::map<std::string, double> losses;  // "total", "value", ...
  int64_t skipped_batches = 0;
  int64_t checkpoints = 0;
  bool finished = false;         // the budget is reached
  bool stopped = false;          // the thread has ended (budget or Stop)
  std::string batch_error;       // the last refused batch, or wait
  std::string checkpoint_error;  // the last failed checkpoint
  // Non-empty: a learner with a newer lease epoch claimed the checkpoints;
  // training stopped without saving (not a job failure: the job goes on
  // with that learner).
  std::string fenced;
  // What ended the thread when something escaped it (crash_guard.h); the
  // worker reports it as the job's fatal error.
  std::string fatal_error;
  // Demonstrations: the normalised return of the best offered so far (what
  // the heartbeat reports), how many were replayed, how many training
  // positions came from them, and the last solution that failed to replay.
  double demonstrated_return = 0;
  int64_t demonstrations = 0;
  int64_t demonstrated_positions = 0;
  std::string demonstration_error;
};

class LearnerJob {
 public:
  // Builds, resumes and publishes version `step`, then starts training.
  // InvalidArgument for a config that cannot build a learner; the
  // checkpoint's error when one exists but cannot be loaded (another
  // network size); Aborted when a newer lease epoch holds the checkpoints. `parameters` and `metrics` may be null; not owned.
  static absl::StatusOr<std::unique_ptr<LearnerJob>> Start(
      LearnerJobOptions options, std::unique_ptr<worker::BatchSource> source,
      worker::ParameterStore* parameters, LearnerMetrics* metrics);
  ~LearnerJob();  // Stop()

  // Ends training after the current step and writes the final checkpoint;
  // idempotent. The parameters stay published.
  void Stop();
  LearnerProgress progress() const;
  // Queues `solution` as the next demonstration when its normalised return
  // beats every solution offered before (older ones are dropped unseen);
  // replayed by the training thread. Thread-safe.
  void OfferDemonstration(const Solution& solution);
  // Blocks until the thread ended or `timeout` passed; whether it ended.
  bool AwaitStopped(absl::Duration timeout) const;
  const std::string& job_id() const { return options_.job_id; }

 private:
  LearnerJob(LearnerJobOptions options, std::unique_ptr<worker::BatchSource> source,
             worker::ParameterStore* parameters, LearnerMetrics* metrics);
  void Run(std::stop_token stop);
  void Publish();
  void Checkpoint();
  bool BudgetReached() const;
  // Replays the offered solution, if any, into demonstrations_.
  void TakeDemonstration();
  // Replaces the tail of `batch` by demonstration positions (see above).
  void MixDemonstrations(worker::Batch* batch);

  const LearnerJobOptions options_;
  std::unique_ptr<worker::BatchSource> source_;
  worker::ParameterStore* const parameters_;
  LearnerMetrics* const metrics_;
  std::unique_ptr<model::Learner> learner_;  // used by the thread only
  int64_t checkpoint_interval_ = 0;
  int64_t saved_step_ = -1;  // thread only
  bool fenced_ = false;      // thread only
  std::unique_ptr<agent::ReplayBuffer> demonstrations_;   // thread only
  absl::Time last_demonstration_ = absl::InfinitePast();  // thread only

  struct Offer {
    std::optional<Solution> pending;                         // not yet replayed
    double best = -std::numeric_limits<double>::infinity();  // ever offered
  };
  Guarded<Offer> offered_;
  Guarded<LearnerProgress> progress_;  // written by the thread, read by all
  std::jthread thread_;  // last: stopped and joined first
};

}  // namespace mmapzero::learner

#endif  // MMAPZERO_LEARNER_LEARNER_JOB_H_
