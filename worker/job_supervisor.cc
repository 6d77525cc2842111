#include "worker/job_supervisor.h"

#include <algorithm>
#include <utility>

#include "absl/time/clock.h"
#include "common/service/crash_guard.h"
#include "common/service/log_line.h"

namespace mmapzero::worker {
namespace {

// How often the assignments are looked at when nothing changed.
constexpr absl::Duration kRecheck = absl::Milliseconds(500);
// How long a job that failed here is not started again once unassigned.
constexpr absl::Duration kRememberFailure = absl::Minutes(1);

}  // namespace

// The log line's `why`.
std::string JobSupervisor::Name(StopReason why) {
  switch (why) {
    case StopReason::kUnassigned:
      return "unassigned";
    case StopReason::kCrashed:
      return "crashed";
    case StopReason::kFenced:
      return "fenced";
    case StopReason::kLeaseRenewed:
      return "lease_renewed";
  }
  return "unknown";
}

std::string SupervisedJob::fatal_error() const {
  absl::MutexLock lock(&crash_mu_);
  return crash_;
}

void SupervisedJob::RunGuarded(const std::string& job_id,
                               const std::function<void()>& body) {
  std::string crash = service::RunCatchingCrash(job_id, body);
  if (crash.empty()) return;
  absl::MutexLock lock(&crash_mu_);
  crash_ = std::move(crash);
}

JobSupervisor::JobSupervisor(worker::WorkerSession* session,
                             v1::WorkerRole role, JobFactory factory,
                             absl::Duration stop_drain)
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
  absl::flat_hash_map<std::string, RunningJob> jobs;
  {
    absl::MutexLock lock(&mu_);
    if (stopped_) return;
    stopped_ = true;
    jobs.swap(jobs_);
  }
  // One drain time for all jobs, not one each.
  const absl::Time deadline = absl::Now() + drain;
  for (auto& [id, running] : jobs) {
    running.job->Stop(std::max(absl::ZeroDuration(), deadline - absl::Now()));
    service::LogLine("info", "job_stopped", {{"job", id}, {"why", "shutdown"}});
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
  return it == jobs_.end() ? nullptr : it->second.job;
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
  Assigned assigned;
  std::vector<v1::Assignment> fresh;
  std::vector<StoppingJob> stopping;
  {
    absl::MutexLock lock(&mu_);
    fresh = UpdateLocked(assignments, &assigned);
    stopping = TakeStoppingLocked(assigned);
    ForgetLocked(assigned);
  }
  StopJobs(std::move(stopping));
  for (const v1::Assignment& assignment : fresh) StartJob(assignment);
}

std::vector<v1::Assignment> JobSupervisor::UpdateLocked(
    const std::vector<v1::Assignment>& assignments, Assigned* assigned) {
  std::vector<v1::Assignment> fresh;
  for (const v1::Assignment& assignment : assignments) {
    if (assignment.role() != role_) continue;
    const std::string& id = assignment.job_id();
    (*assigned)[id] = assignment.lease_epoch();
    if (auto it = jobs_.find(id); it != jobs_.end()) {
      if (it->second.epoch == assignment.lease_epoch()) {
        it->second.job->Update(assignment);
      }
      continue;
    }
    const auto fenced = fenced_.find(id);
    const bool fenced_out =
        fenced != fenced_.end() && fenced->second == assignment.lease_epoch();
    if (!failed_.contains(id) && !fenced_out && assignment.has_workload() &&
        assignment.has_config()) {
      fresh.push_back(assignment);
    }
  }
  return fresh;
}

std::vector<JobSupervisor::StoppingJob> JobSupervisor::TakeStoppingLocked(
    const Assigned& assigned) {
  std::vector<StoppingJob> stopping;
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    const std::string& id = it->first;
    RunningJob& running = it->second;
    const std::string crash = running.job->fatal_error();
    const std::string fenced = running.job->fenced();
    const auto want = assigned.find(id);
    const bool renewed =
        want != assigned.end() && want->second != running.epoch;
    if (want != assigned.end() && !renewed && crash.empty() && fenced.empty()) {
      ++it;
      continue;
    }
    StopReason why = StopReason::kUnassigned;
    if (!crash.empty()) {
      RecordFailureLocked(id, crash);
      why = StopReason::kCrashed;
    } else if (!fenced.empty()) {
      fenced_[id] = running.epoch;
      why = StopReason::kFenced;
    } else if (renewed) {
      why = StopReason::kLeaseRenewed;
    }
    stopping.push_back({.id = id, .job = std::move(running.job), .why = why});
    jobs_.erase(it++);
  }
  return stopping;
}

void JobSupervisor::ForgetLocked(const Assigned& assigned) {
  // A fence holds for its epoch only.
  for (auto it = fenced_.begin(); it != fenced_.end();) {
    const auto want = assigned.find(it->first);
    if (want == assigned.end() || want->second != it->second) {
      fenced_.erase(it++);
    } else {
      ++it;
    }
  }
  // A failure is kept (and reported) while the job stays assigned and for
  // kRememberFailure after: the coordinator drops the lease when it hears
  // of it and may offer the job again a heartbeat later, and a job that
  // crashed once would crash again.
  const absl::Time now = absl::Now();
  for (auto it = failed_.begin(); it != failed_.end();) {
    if (assigned.contains(it->first)) {
      it->second.unassigned_since.reset();
    } else if (!it->second.unassigned_since) {
      it->second.unassigned_since = now;
    }
    if (it->second.unassigned_since &&
        now - *it->second.unassigned_since >= kRememberFailure) {
      session_->ClearCounters(it->first);
      failed_.erase(it++);
    } else {
      ++it;
    }
  }
}

void JobSupervisor::StopJobs(std::vector<StoppingJob> stopping) {
  for (StoppingJob& gone : stopping) {
    gone.job->Stop(stop_drain_);
    // A crashed job's counters carry its fatal error to the coordinator;
    // they go when the failure is forgotten (ForgetLocked). Cleared
    // counters also make the coordinator send a renewed job's workload and
    // config again.
    if (gone.why != StopReason::kCrashed) session_->ClearCounters(gone.id);
    service::LogLine("info", "job_stopped",
                     {{"job", gone.id}, {"why", Name(gone.why)}});
  }
}

void JobSupervisor::StartJob(const v1::Assignment& assignment) {
  absl::StatusOr<std::shared_ptr<SupervisedJob>> job =
      absl::InternalError("not started");
  const std::string crash = service::RunCatchingCrash(
      assignment.job_id(), [&] { job = factory_(assignment); });
  if (!crash.empty()) job = absl::InternalError(crash);
  absl::MutexLock lock(&mu_);
  if (absl::IsUnavailable(job.status())) {  // asked again next round
    service::LogLine("warning", "job_start_deferred",
                     {{"job", assignment.job_id()},
                      {"message", std::string(job.status().message())}});
    return;
  }
  if (absl::IsAborted(job.status())) {  // another worker holds it now
    fenced_[assignment.job_id()] = assignment.lease_epoch();
    service::LogLine("warning", "fenced",
                     {{"job", assignment.job_id()},
                      {"message", std::string(job.status().message())}});
    return;
  }
  if (!job.ok()) {
    const std::string error = job.status().ToString();
    service::LogLine("error", "job_failed_to_start",
                     {{"job", assignment.job_id()}, {"error", error}});
    RecordFailureLocked(assignment.job_id(), error);
    return;
  }
  jobs_[assignment.job_id()] =
      RunningJob{.job = *std::move(job), .epoch = assignment.lease_epoch()};
  service::LogLine("info", "job_started",
                   {{"job", assignment.job_id()},
                    {"role", v1::WorkerRole_Name(role_)},
                    {"replay", assignment.replay_address()},
                    {"learner", assignment.parameter_address()}});
}

}  // namespace mmapzero::worker
