#include "actor/job_supervisor.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/time/clock.h"
#include "common/rpc/crash_guard.h"
#include "common/rpc/log_line.h"

namespace mmapzero::actor {
namespace {

// How often the assignments are looked at when nothing changed.
constexpr absl::Duration kRecheck = absl::Milliseconds(500);
// How long a job that failed here is not started again once unassigned.
constexpr absl::Duration kRememberFailure = absl::Minutes(1);

}  // namespace

std::string SupervisedJob::fatal_error() const {
  absl::MutexLock lock(&crash_mu_);
  return crash_;
}

void SupervisedJob::RunGuarded(const std::string& job_id,
                               const std::function<void()>& body) {
  std::string crash = rpc::RunCatchingCrash(job_id, body);
  if (crash.empty()) return;
  absl::MutexLock lock(&crash_mu_);
  crash_ = std::move(crash);
}

JobSupervisor::JobSupervisor(rpc::WorkerSession* session, v1::WorkerRole role,
                             JobFactory factory, absl::Duration stop_drain)
    : session_(session),
      role_(role),
      factory_(std::move(factory)),
      stop_drain_(stop_drain) {
  thread_ = std::jthread([this](std::stop_token stop) { Run(stop); });
}

JobSupervisor::~JobSupervisor() { Stop(absl::ZeroDuration()); }

void JobSupervisor::Stop(absl::Duration drain) {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
  absl::flat_hash_map<std::string, std::shared_ptr<SupervisedJob>> jobs;
  {
    absl::MutexLock lock(&mu_);
    if (stopped_) return;
    stopped_ = true;
    jobs.swap(jobs_);
  }
  // One drain time for all jobs, not one each.
  const absl::Time deadline = absl::Now() + drain;
  for (auto& [id, job] : jobs) {
    job->Stop(std::max(absl::ZeroDuration(), deadline - absl::Now()));
    rpc::LogLine("info", "job_stopped", {{"job", id}, {"why", "shutdown"}});
  }
}

void JobSupervisor::RecordFailureLocked(const std::string& job_id,
                                        const std::string& error) {
  failed_[job_id] = Failure{.error = error, .unassigned_since = std::nullopt};
  v1::JobCounters counters;
  counters.set_job_id(job_id);
  counters.set_fatal_error(error);
  session_->SetCounters(counters);
}

std::shared_ptr<SupervisedJob> JobSupervisor::Find(
    const std::string& job_id) const {
  absl::MutexLock lock(&mu_);
  auto it = jobs_.find(job_id);
  return it == jobs_.end() ? nullptr : it->second;
}

std::vector<std::string> JobSupervisor::JobIds() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> ids;
  for (const auto& [id, job] : jobs_) ids.push_back(id);
  return ids;
}

void JobSupervisor::Run(std::stop_token stop) {
  int64_t seen = -1;
  while (!stop.stop_requested()) {
    seen = session_->AwaitChange(seen, kRecheck);
    if (stop.stop_requested()) return;
    Reconcile(session_->Assignments());
  }
}

void JobSupervisor::Reconcile(const std::vector<v1::Assignment>& assignments) {
  absl::flat_hash_set<std::string> assigned;
  std::vector<std::shared_ptr<SupervisedJob>> gone;
  std::vector<std::string> gone_ids;
  std::vector<bool> gone_crashed;  // its failure is in failed_
  std::vector<v1::Assignment> fresh;
  {
    absl::MutexLock lock(&mu_);
    for (const v1::Assignment& assignment : assignments) {
      if (assignment.role() != role_) continue;
      assigned.insert(assignment.job_id());
      auto it = jobs_.find(assignment.job_id());
      if (it != jobs_.end()) {
        it->second->Update(assignment);
      } else if (!failed_.contains(assignment.job_id()) &&
                 assignment.has_workload() && assignment.has_config()) {
        fresh.push_back(assignment);
      }
    }
    for (auto it = jobs_.begin(); it != jobs_.end();) {
      const std::string crash = it->second->fatal_error();
      if (assigned.contains(it->first) && crash.empty()) {
        ++it;
        continue;
      }
      if (!crash.empty()) RecordFailureLocked(it->first, crash);
      gone_ids.push_back(it->first);
      gone_crashed.push_back(!crash.empty());
      gone.push_back(std::move(it->second));
      jobs_.erase(it++);
    }
    // A failure is kept (and reported) while the job stays assigned and for
    // kRememberFailure after: the coordinator drops the lease when it hears
    // of it and may offer the job again a heartbeat later, and a job that
    // crashed once would crash again.
    const absl::Time now = absl::Now();
    for (auto it = failed_.begin(); it != failed_.end();) {
      if (assigned.contains(it->first)) it->second.unassigned_since.reset();
      else if (!it->second.unassigned_since) it->second.unassigned_since = now;
      if (it->second.unassigned_since &&
          now - *it->second.unassigned_since >= kRememberFailure) {
        session_->ClearCounters(it->first);
        failed_.erase(it++);
      } else {
        ++it;
      }
    }
  }
  for (size_t i = 0; i < gone.size(); ++i) {
    gone[i]->Stop(stop_drain_);
    // A crashed job's counters carry its fatal error to the coordinator;
    // they go when the failure is forgotten (the failed_ sweep above).
    const bool crashed = gone_crashed[i];
    if (!crashed) session_->ClearCounters(gone_ids[i]);
    rpc::LogLine("info", "job_stopped",
                 {{"job", gone_ids[i]}, {"why", crashed ? "crashed" : "unassigned"}});
  }
  for (const v1::Assignment& assignment : fresh) {
    absl::StatusOr<std::shared_ptr<SupervisedJob>> job =
        absl::InternalError("not started");
    const std::string crash = rpc::RunCatchingCrash(
        assignment.job_id(), [&] { job = factory_(assignment); });
    if (!crash.empty()) job = absl::InternalError(crash);
    absl::MutexLock lock(&mu_);
    if (!job.ok()) {
      const std::string error = job.status().ToString();
      rpc::LogLine("error", "job_failed_to_start",
                   {{"job", assignment.job_id()}, {"error", error}});
      RecordFailureLocked(assignment.job_id(), error);
      continue;
    }
    jobs_[assignment.job_id()] = *std::move(job);
    rpc::LogLine("info", "job_started",
                 {{"job", assignment.job_id()},
                  {"role", v1::WorkerRole_Name(role_)},
                  {"replay", assignment.replay_address()},
                  {"learner", assignment.parameter_address()}});
  }
}

}  // namespace mmapzero::actor
