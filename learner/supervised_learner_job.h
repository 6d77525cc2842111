// One learner job as the worker's JobSupervisor (worker/job_supervisor.h)
// sees it: the LearnerJob, the replay sampler that feeds its prefetch
// queue, and a thread that puts its step, parameter version and losses
// into the next heartbeat every `report_interval`. Stop checkpoints (the
// LearnerJob's own Stop), reports the final step and withdraws the job's
// parameters. A crash or a fence of the LearnerJob is the supervisor's to
// act on (fatal_error(), fenced()); neither is reported from here. A best
// solution in an assignment goes to the LearnerJob as a demonstration, and
// its return into the heartbeat at once (so the coordinator sends it once).
#ifndef MMAPZERO_LEARNER_SUPERVISED_LEARNER_JOB_H_
#define MMAPZERO_LEARNER_SUPERVISED_LEARNER_JOB_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "absl/time/time.h"
#include "learner/learner_job.h"
#include "learner/replay_sampler.h"
#include "worker/job_supervisor.h"
#include "worker/parameter_store.h"
#include "worker/worker_session.h"

namespace mmapzero::learner {

class SupervisedLearnerJob final : public worker::SupervisedJob {
 public:
  // `session` and `parameters` are not owned and outlive the job;
  // `sampler` feeds `job`'s batch source.
  SupervisedLearnerJob(std::string job_id,
                       std::unique_ptr<ReplaySampler> sampler,
                       std::unique_ptr<LearnerJob> job,
                       worker::WorkerSession* session,
                       worker::ParameterStore* parameters,
                       absl::Duration report_interval);
  ~SupervisedLearnerJob() override;  // Stop

  void Update(const v1::Assignment& assignment) override;
  void Stop(absl::Duration drain) override;
  std::string fatal_error() const override;
  std::string fenced() const override;

  LearnerProgress progress() const { return job_->progress(); }

 private:
  void Report();

  const std::string job_id_;
  std::unique_ptr<ReplaySampler> sampler_;  // before job_: outlives it
  std::unique_ptr<LearnerJob> job_;
  worker::WorkerSession* const session_;
  worker::ParameterStore* const parameters_;
  std::atomic<bool> stopped_{false};  // Stop ran (or runs)
  std::jthread reporter_;             // last: stopped first
};

}  // namespace mmapzero::learner

#endif  // MMAPZERO_LEARNER_SUPERVISED_LEARNER_JOB_H_
