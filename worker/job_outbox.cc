#include "worker/job_outbox.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/rpc/backoff.h"
#include "common/service/log_line.h"

namespace mmapzero::worker {
namespace {

// How long the thread sleeps with nothing to do before looking again.
constexpr absl::Duration kIdleWait = absl::Seconds(1);

}  // namespace

JobOutbox::JobOutbox(JobOutboxOptions options)
    : options_(std::move(options)),
      replay_(options_.job_id),
      worker_id_(options_.worker_id) {
  thread_ = std::jthread([this] { Run(); });
}

JobOutbox::~JobOutbox() { Drain(absl::ZeroDuration()); }

void JobOutbox::SetReplayAddress(const std::string& address) {
  if (address == replay_.address()) return;
  replay_.SetAddress(address);
  absl::MutexLock lock(&mu_);
  wake_ = true;
}

void JobOutbox::SetWorkerId(const std::string& worker_id) {
  absl::MutexLock lock(&mu_);
  worker_id_ = worker_id;
}

void JobOutbox::Add(v1::Trajectory trajectory) {
  const auto bytes = static_cast<int64_t>(trajectory.ByteSizeLong());
  absl::MutexLock lock(&mu_);
  if (draining_) return;
  if (bytes > options_.max_request_bytes) {
    ++stats_.oversized;
    service::LogLine("warning", "trajectory_oversized",
                     {{"job", options_.job_id},
                      {"steps", absl::StrCat(trajectory.steps_size())},
                      {"bytes", absl::StrCat(bytes)},
                      {"limit", absl::StrCat(options_.max_request_bytes)}});
    return;
  }
  queue_.push_back(Queued{next_seq_++, bytes, std::move(trajectory)});
  while (static_cast<int>(queue_.size()) > std::max(1, options_.max_queued)) {
    queue_.pop_front();
    ++stats_.dropped;
  }
  wake_ = true;
}

void JobOutbox::OfferSolution(const Solution& solution,
                              int64_t parameter_version) {
  if (!options_.report) return;
  absl::MutexLock lock(&mu_);
  if (draining_ || solution.normalised_return() <= stats_.best_offered) return;
  stats_.best_offered = solution.normalised_return();
  pending_ = PendingReport{solution, parameter_version};
  wake_ = true;
}

void JobOutbox::Drain(absl::Duration timeout) {
  {
    absl::MutexLock lock(&mu_);
    if (!draining_) {
      draining_ = true;
      drain_deadline_ = absl::Now() + timeout;
    }
    wake_ = true;
  }
  if (thread_.joinable()) thread_.join();
  absl::MutexLock lock(&mu_);
  stats_.dropped += static_cast<int64_t>(queue_.size());
  queue_.clear();
}

OutboxStats JobOutbox::stats() const {
  absl::MutexLock lock(&mu_);
  OutboxStats stats = stats_;
  stats.queued = static_cast<int64_t>(queue_.size());
  return stats;
}

bool JobOutbox::HasWork() const {
  return pending_.has_value() || (!queue_.empty() && replay_.has_address());
}

absl::Duration JobOutbox::CallDeadline() const {
  if (!draining_) return options_.rpc_deadline;
  return std::max(
      absl::Milliseconds(1),
      std::min(options_.rpc_deadline, drain_deadline_ - absl::Now()));
}

void JobOutbox::Run() {
  rpc::Backoff backoff;
  absl::Duration wait = absl::ZeroDuration();
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      const absl::Time until =
          std::min(absl::Now() + wait,
                   draining_ ? drain_deadline_ : absl::InfiniteFuture());
      auto ready = [this]()
                       ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return wake_; };
      mu_.AwaitWithDeadline(absl::Condition(&ready), until);
      wake_ = false;
      if (draining_ && (!HasWork() || absl::Now() >= drain_deadline_)) return;
    }
    const bool reported = SendReport();
    const bool sent = SendBatch();
    absl::MutexLock lock(&mu_);
    if (reported || sent) {
      backoff.Reset();
      wait = absl::ZeroDuration();
      wake_ = HasWork();
    } else {
      wait = HasWork() ? backoff.Next() : kIdleWait;
    }
  }
}

bool JobOutbox::SendReport() {
  PendingReport report;
  {
    absl::MutexLock lock(&mu_);
    if (!pending_.has_value()) return false;
    report = *pending_;
  }
  absl::StatusOr<v1::ReportSolutionResponse> response =
      options_.report(report.solution, report.parameter_version);
  absl::MutexLock lock(&mu_);
  if (!response.ok()) {
    service::LogLine("warning", "report_failed",
                     {{"job", options_.job_id},
                      {"error", std::string(response.status().message())}});
    return false;
  }
  ++stats_.reports;
  if (response->accepted()) ++stats_.accepted;
  stats_.last_report = *response;
  service::LogLine(
      "info", "solution_reported",
      {{"job", options_.job_id},
       {"claimed", absl::StrCat(report.solution.normalised_return())},
       {"accepted", response->accepted() ? "true" : "false"},
       {"reason", response->reason()}});
  // A better one may have been offered while this one was on the way.
  if (pending_.has_value() && pending_->solution.normalised_return() ==
                                  report.solution.normalised_return()) {
    pending_.reset();
  }
  return true;
}

bool JobOutbox::SendBatch() {
  v1::InsertTrajectoriesRequest request;
  if (options_.lease_ticket) {
    *request.mutable_lease_ticket() = options_.lease_ticket();
  }
  uint64_t last_seq = 0;
  absl::Duration deadline;
  {
    absl::MutexLock lock(&mu_);
    if (queue_.empty() || !replay_.has_address()) return false;
    request.set_job_id(options_.job_id);
    request.set_worker_id(worker_id_);
    const int n =
        std::min<int>(queue_.size(), std::max(1, options_.batch_size));
    int64_t bytes = 0;
    for (int i = 0; i < n; ++i) {
      // The first always goes (Add refused any over the limit alone).
      bytes += queue_[i].bytes;
      if (i > 0 && bytes > options_.max_request_bytes) break;
      *request.add_trajectories() = queue_[i].trajectory;
      last_seq = queue_[i].seq;
    }
    deadline = CallDeadline();
  }
  const absl::StatusOr<v1::InsertTrajectoriesResponse> response =
      replay_.InsertTrajectories(request, deadline);
  absl::MutexLock lock(&mu_);
  if (!response.ok()) {
    const absl::Status& status = response.status();
    ++stats_.send_failures;
    // Replay refuses these trajectories: retrying cannot help.
    if (absl::IsInvalidArgument(status) || absl::IsResourceExhausted(status)) {
      while (!queue_.empty() && queue_.front().seq <= last_seq) {
        queue_.pop_front();
        ++stats_.dropped;
      }
    }
    service::LogLine("warning", "insert_failed",
                     {{"job", options_.job_id},
                      {"code", absl::StatusCodeToString(status.code())},
                      {"message", std::string(status.message())}});
    return false;
  }
  // Entries may have been dropped from the front meanwhile.
  while (!queue_.empty() && queue_.front().seq <= last_seq) {
    queue_.pop_front();
  }
  stats_.sent += request.trajectories_size();
  return true;
}

}  // namespace mmapzero::worker
