#include "reanalyse/reanalyse_worker.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "reanalyse/reanalyse_job.h"
#include "common/base/status_macros.h"

namespace mmapzero::reanalyse {

absl::Status CheckReanalyseWorkerOptions(
    const ReanalyseWorkerOptions& options) {
  if (options.capacity < 1 || options.capacity > 1024) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--capacity: must be in [1, 1024], got ", options.capacity));
  }
  if (options.trajectories_per_round < 1 ||
      options.trajectories_per_round > 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat("--trajectories-per-round: must be in [1, 1024], got ",
                     options.trajectories_per_round));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ReanalyseWorker>> ReanalyseWorker::Start(
    const ReanalyseWorkerOptions& options) {
  RETURN_IF_ERROR(CheckReanalyseWorkerOptions(options));
  std::unique_ptr<ReanalyseWorker> worker(new ReanalyseWorker());
  absl::StatusOr<std::unique_ptr<worker::WorkerSession>> session =
      worker::WorkerSession::Start(
          worker::WorkerSessionOptions{.coordinator = options.coordinator,
                                       .role = v1::WORKER_ROLE_REANALYSE,
                                       .address = "",
                                       .capacity = options.capacity,
                                       .name = options.name,
                                       .rpc_deadline = absl::Seconds(5)});
  if (!session.ok()) return session.status();
  worker->session_ = *std::move(session);
  const ReanalyseJobOptions job_options{
      .seed = options.seed,
      .trajectories_per_round = options.trajectories_per_round,
      .parameter_poll = options.parameter_poll,
      .rpc_deadline = options.rpc_deadline,
      .session = worker->session_.get(),
      .metrics = options.metrics};
  worker->supervisor_ = std::make_unique<worker::JobSupervisor>(
      worker->session_.get(), v1::WORKER_ROLE_REANALYSE,
      [job_options](const v1::Assignment& assignment)
          -> absl::StatusOr<std::shared_ptr<worker::SupervisedJob>> {
        absl::StatusOr<std::shared_ptr<ReanalyseJob>> job =
            ReanalyseJob::Start(assignment, job_options);
        if (!job.ok()) return job.status();
        return std::shared_ptr<worker::SupervisedJob>(*std::move(job));
      },
      /*stop_drain=*/absl::ZeroDuration());
  return worker;
}

ReanalyseWorker::~ReanalyseWorker() { Shutdown(); }

void ReanalyseWorker::Shutdown() {
  if (supervisor_) supervisor_->Stop(absl::ZeroDuration());
  if (session_) session_->Stop();
}

std::optional<ReanalyseJobStats> ReanalyseWorker::JobStats(
    const std::string& job_id) const {
  std::shared_ptr<worker::SupervisedJob> job = supervisor_->Find(job_id);
  if (job == nullptr) return std::nullopt;
  return static_cast<const ReanalyseJob&>(*job).stats();
}

}  // namespace mmapzero::reanalyse
