#include "actor/actor_worker.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "actor/actor_job.h"
#include "common/base/status_macros.h"

namespace mmapzero::actor {

absl::Status CheckActorWorkerOptions(const ActorWorkerOptions& options) {
  if (options.capacity < 1 || options.capacity > 1024) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--capacity: must be in [1, 1024], got ", options.capacity));
  }
  if (options.trajectory_batch < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--trajectory-batch: must be >= 1, got ", options.trajectory_batch));
  }
  if (options.max_queued_trajectories < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max-queued-trajectories: must be >= 1, got ",
                     options.max_queued_trajectories));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ActorWorker>> ActorWorker::Start(
    const ActorWorkerOptions& options) {
  RETURN_IF_ERROR(CheckActorWorkerOptions(options));
  std::unique_ptr<ActorWorker> worker(new ActorWorker());
  absl::StatusOr<std::unique_ptr<worker::WorkerSession>> session =
      worker::WorkerSession::Start(
          worker::WorkerSessionOptions{.coordinator = options.coordinator,
                                       .role = v1::WORKER_ROLE_ACTOR,
                                       .address = "",
                                       .capacity = options.capacity,
                                       .name = options.name,
                                       .rpc_deadline = options.rpc_deadline});
  if (!session.ok()) return session.status();
  worker->session_ = *std::move(session);
  ActorJobOptions job_options{
      .seed = options.seed,
      .parameter_poll = options.parameter_poll,
      .rpc_deadline = options.rpc_deadline,
      .trajectory_batch = options.trajectory_batch,
      .max_queued_trajectories = options.max_queued_trajectories,
      .session = worker->session_.get(),
      .metrics = options.metrics};
  worker->supervisor_ = std::make_unique<worker::JobSupervisor>(
      worker->session_.get(), v1::WORKER_ROLE_ACTOR,
      [job_options](const v1::Assignment& assignment)
          -> absl::StatusOr<std::shared_ptr<worker::SupervisedJob>> {
        absl::StatusOr<std::shared_ptr<ActorJob>> job =
            ActorJob::Start(assignment, job_options);
        if (!job.ok()) return job.status();
        return std::shared_ptr<worker::SupervisedJob>(*std::move(job));
      });
  return worker;
}

ActorWorker::~ActorWorker() { Shutdown(absl::ZeroDuration()); }

void ActorWorker::Shutdown(absl::Duration drain) {
  if (supervisor_) supervisor_->Stop(drain);
  if (session_) session_->Stop();
}

std::optional<ActorJobStats> ActorWorker::JobStats(
    const std::string& job_id) const {
  std::shared_ptr<worker::SupervisedJob> job = supervisor_->Find(job_id);
  if (job == nullptr) return std::nullopt;
  return static_cast<const ActorJob&>(*job).stats();
}

}  // namespace mmapzero::actor
