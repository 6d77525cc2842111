#include "learner/supervised_learner_job.h"

#include <algorithm>
#include <stop_token>
#include <utility>

#include "common/base/guarded.h"

namespace mmapzero::learner {

SupervisedLearnerJob::SupervisedLearnerJob(
    std::string job_id, std::unique_ptr<ReplaySampler> sampler,
    std::unique_ptr<LearnerJob> job, worker::WorkerSession* session,
    worker::ParameterStore* parameters, absl::Duration report_interval)
    : job_id_(std::move(job_id)),
      sampler_(std::move(sampler)),
      job_(std::move(job)),
      session_(session),
      parameters_(parameters) {
  Report();
  reporter_ = std::jthread([this, report_interval](std::stop_token stop) {
    Guarded<bool> stopping(false);
    std::stop_callback on_stop(
        stop, [&] { stopping.Update([](bool& value) { value = true; }); });
    const auto stopped = [](const bool& value) { return value; };
    while (!stopping.AwaitWithTimeout(stopped, report_interval)) Report();
  });
}

SupervisedLearnerJob::~SupervisedLearnerJob() { Stop(absl::ZeroDuration()); }

void SupervisedLearnerJob::Update(const v1::Assignment& assignment) {
  sampler_->SetAddress(assignment.replay_address());
  if (assignment.best().decisions_size() > 0) {
    job_->OfferDemonstration(assignment.best());
    Report();  // the next heartbeat says it holds it: sent once
  }
}

void SupervisedLearnerJob::Stop(absl::Duration /*drain*/) {
  if (stopped_.exchange(true)) return;
  if (reporter_.joinable()) {
    reporter_.request_stop();
    reporter_.join();
  }
  job_->Stop();  // checkpoints
  Report();      // the final step, for a heartbeat that may still go out
  if (parameters_ != nullptr) parameters_->Remove(job_id_);
}

std::string SupervisedLearnerJob::fatal_error() const {
  return job_->progress().fatal_error;
}

std::string SupervisedLearnerJob::fenced() const {
  return job_->progress().fenced;
}

void SupervisedLearnerJob::Report() {
  const LearnerProgress progress = job_->progress();
  // A crash is reported by the supervisor, a fenced job not at all.
  if (!progress.fatal_error.empty() || !progress.fenced.empty()) return;
  v1::JobCounters counters;
  counters.set_job_id(job_id_);
  counters.set_learner_step(progress.step);
  counters.set_parameter_version(
      std::max<int64_t>(0, progress.parameter_version));
  counters.set_demonstrated_return(progress.demonstrations.best_offered);
  counters.set_checkpoint_fallback(
      progress.checkpoint_fallback.substr(0, worker::kMaxHeartbeatTextBytes));
  for (const auto& [term, value] : progress.losses) {
    (*counters.mutable_losses())[term] = value;
  }
  session_->SetCounters(counters);
}

}  // namespace mmapzero::learner
