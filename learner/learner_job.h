// One job's training in the learner service (docs/protocols.md): builds the
// network from the job's MuZeroConfig (range-checked; a bare preset
// reference is expanded, features/config_presets.h) on the training device
// (CUDA when LibTorch has it, else the CPU), resumes from the job's checkpoint
// directory when one exists (a lease that passed from another learner
// continues at the saved step), then on a thread of its own runs the
// training loop (common/training/training_loop.h, the one the in-process
// solver runs too) over batches from its BatchSource until the job's
// learner-step budget (or the config's training.training_steps, whichever
// comes first) is reached or Stop():
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
// Demonstrations (common/training/demonstrations.h): OfferDemonstration
// hands the job the start solution, then each new best the coordinator
// records; the loop replays and mixes them as the in-process solver does.
// The loop's rounds keep the job's /healthz check and metrics current and
// its events in the log.
#ifndef MMAPZERO_LEARNER_LEARNER_JOB_H_
#define MMAPZERO_LEARNER_LEARNER_JOB_H_

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/agent/batch_source.h"
#include "common/base/guarded.h"
#include "common/game/program.h"
#include "common/training/demonstrations.h"
#include "common/training/learner.h"
#include "common/training/training_loop.h"
#include "learner/learner_metrics.h"
#include "learner/learner_progress.h"
#include "proto/muzero.pb.h"
#include "proto/solution.pb.h"
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
  // The bytes of the network the job starts from when its config's
  // training.initial_network is the coordinator's copy ("sha256:..."),
  // fetched by the worker (FetchJobNetwork) and loaded instead of a file
  // or the default.
  std::string initial_network_bytes = {};
  // Called on the training thread after each checkpoint is written, with
  // the learner step and the network's bytes (a network file): the worker
  // reports them as the job's network (ReportJobNetwork). Null: none.
  std::function<void(int64_t step, const std::string& bytes)> network_saved =
      nullptr;
};

class LearnerJob {
 public:
  // Builds, resumes and publishes version `step`, then starts training.
  // InvalidArgument for a config that cannot build a learner; the
  // checkpoint's error when one exists but cannot be loaded (another
  // network size); Aborted when a newer lease epoch holds the checkpoints.
  // `parameters` and `metrics` may be null; not owned.
  static absl::StatusOr<std::unique_ptr<LearnerJob>> Start(
      LearnerJobOptions options, std::unique_ptr<agent::BatchSource> source,
      worker::ParameterStore* parameters, LearnerMetrics* metrics);
  ~LearnerJob();  // Stop()

  // Ends training after the current step and writes the final checkpoint;
  // idempotent. The parameters stay published.
  void Stop();
  LearnerProgress progress() const;
  // Offers `solution` as the next demonstration (kept when it beats every
  // one offered before). Thread-safe.
  void OfferDemonstration(const Solution& solution);
  // Blocks until the thread ended or `timeout` passed; whether it ended.
  bool AwaitStopped(absl::Duration timeout) const;
  const std::string& job_id() const { return options_.job_id; }

 private:
  class Observer;  // health, metrics and logs of the loop's rounds

  LearnerJob(LearnerJobOptions options,
             std::unique_ptr<agent::BatchSource> source,
             worker::ParameterStore* parameters, LearnerMetrics* metrics);
  // Builds the learner and resumes it from the checkpoint; the step of
  // the checkpoint it loaded, or -1.
  absl::StatusOr<int64_t> BuildLearner();
  // The loop over learner_, with this job's sinks.
  void BuildLoop(int64_t saved_step);
  void PublishParameters(const model::MuZeroNetwork& network, int64_t step);
  absl::Status SaveCheckpoint(const training::Learner& learner);

  const LearnerJobOptions options_;
  std::unique_ptr<agent::BatchSource> source_;
  worker::ParameterStore* const parameters_;
  LearnerMetrics* const metrics_;
  std::unique_ptr<training::Learner> learner_;  // used by the thread only
  std::unique_ptr<training::Demonstrations> demonstrations_;
  std::unique_ptr<Observer> observer_;
  std::unique_ptr<training::TrainingLoop> loop_;
  int64_t resumed_step_ = 0;
  std::string checkpoint_fallback_;  // LearnerProgress's, set at the start
  // The network it started from (initial_network.h): a path, "default" or
  // "none"; a resumed checkpoint replaced it.
  std::string initial_network_;
  struct Ended {
    bool ended = false;       // the thread's function returned
    std::string fatal_error;  // what escaped it, if anything
  };
  Guarded<Ended> ended_;
  std::jthread thread_;  // last: stopped and joined first
};

}  // namespace mmapzero::learner

#endif  // MMAPZERO_LEARNER_LEARNER_JOB_H_
