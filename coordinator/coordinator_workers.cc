// The worker side of the Coordinator: registration, heartbeats (counters in,
// leases renewed, assignments out) and solution reports.
#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/base/status_macros.h"
#include "common/rpc/enum_names.h"
#include "common/rpc/writer_lease.h"
#include "common/security/lease_ticket.h"
#include "common/security/worker_secret.h"
#include "common/service/log_line.h"
#include "common/validate/faster_solution.h"
#include "coordinator/coordinator.h"
#include "coordinator/ids.h"
#include "coordinator/lease_planner.h"
#include "coordinator/request_checks.h"
#include "coordinator/verified_solution.h"

namespace mmapzero::coordinator {
namespace {

// A reported solution must beat the best by more than this to replace it.
constexpr double kImprovementEpsilon = 1e-9;

absl::Status WorkerNotFound(int64_t worker_id) {
  return absl::NotFoundError(absl::StrCat("worker_id: no worker '",
                                          FormatWorkerId(worker_id),
                                          "' (register again)"));
}

}  // namespace

absl::StatusOr<v1::RegisterResponse> Coordinator::Register(
    const v1::RegisterRequest& request) {
  RETURN_IF_ERROR(CheckRegister(request));
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  WorkerRecord worker;
  worker.role = request.role();
  worker.address = request.address();
  worker.name = request.name();
  worker.capacity = request.capacity() == 0 ? 1 : request.capacity();
  worker.registered_ms = NowMs();
  worker.last_heartbeat_ms = worker.registered_ms;
  ASSIGN_OR_RETURN(const int64_t id, store_->AddWorker(worker));
  v1::RegisterResponse response;
  response.set_worker_id(FormatWorkerId(id));
  response.set_heartbeat_interval_ms(
      absl::ToInt64Milliseconds(options_.heartbeat_interval));
  response.set_lease_ttl_ms(absl::ToInt64Milliseconds(options_.lease_ttl));
  response.set_worker_secret(
      security::WorkerSecret(lease_key_, response.worker_id()));
  // The replay server checks its writers' tickets itself.
  if (worker.role == v1::WORKER_ROLE_REPLAY) {
    response.set_lease_key(lease_key_);
  }
  return response;
}

absl::Status Coordinator::CheckWorkerSecret(const Caller& caller,
                                            absl::string_view method,
                                            const std::string& worker_id,
                                            const std::string& secret) const {
  RETURN_IF_ERROR(ParseWorkerId("worker_id", worker_id).status());
  if (caller.OwnsEverything()) return absl::OkStatus();
  absl::Status checked =
      security::CheckWorkerSecret(lease_key_, worker_id, secret);
  if (!checked.ok()) {
    service::LogLine("warning", "refused",
                     {{"method", std::string(method)},
                      {"caller", caller.identity},
                      {"worker", worker_id},
                      {"reason", std::string(checked.message())}});
  }
  return checked;
}

absl::Status Coordinator::ApplyCountersLocked(
    const WorkerRecord& worker, const v1::JobCounters& counters,
    absl::flat_hash_map<int64_t, double>* reported,
    absl::flat_hash_set<int64_t>* excluded) {
  // A job this coordinator never had (its data directory was replaced):
  // nothing to count, and no assignment will name it.
  const absl::StatusOr<int64_t> id = ParseJobId("job_id", counters.job_id());
  if (!id.ok()) return absl::OkStatus();
  absl::StatusOr<JobRecord> job = store_->GetJob(*id);
  if (absl::IsNotFound(job.status())) return absl::OkStatus();
  RETURN_IF_ERROR(job.status());
  (*reported)[*id] = counters.demonstrated_return();

  RETURN_IF_ERROR(store_->RecordCounters(
      *id, worker.id,
      WorkCounters{.games = counters.games(),
                   .moves = counters.moves(),
                   .simulations = counters.simulations(),
                   .reanalysed = counters.reanalysed(),
                   .best_starts = counters.best_starts(),
                   .followed_moves = counters.followed_moves(),
                   .rejoined = counters.rejoined(),
                   .unchanged = counters.unchanged(),
                   .best_start_window = counters.best_start_window()}));
  NoteChangeLocked(*id);
  if (!counters.checkpoint_fallback().empty()) {
    // Kept on the job whoever holds it now; the same report again (every
    // heartbeat repeats it) changes nothing.
    const std::string fallback = absl::StrCat(
        rpc::WorkerRoleName(worker.role), " ", FormatWorkerId(worker.id), ": ",
        counters.checkpoint_fallback());
    if (job->checkpoint_fallback != fallback) {
      job->checkpoint_fallback = fallback;
      service::LogLine("warning", "checkpoint_fallback_reported",
                       {{"job", counters.job_id()},
                        {"worker", FormatWorkerId(worker.id)},
                        {"fallback", counters.checkpoint_fallback()}});
      RETURN_IF_ERROR(store_->UpdateJob(*job));
    }
  }
  if (job->state != v1::JOB_STATE_RUNNING) return absl::OkStatus();

  ASSIGN_OR_RETURN(const std::vector<Lease> leases, store_->ListLeases());
  const int64_t now = NowMs();
  bool holds = false;
  for (const Lease& lease : leases) {
    holds |= lease.job_id == *id && lease.worker_id == worker.id &&
             lease.role == worker.role && lease.expiry_ms > now;
  }
  if (!holds) return absl::OkStatus();  // late report from a former holder

  if (!counters.fatal_error().empty()) {
    if (worker.role == v1::WORKER_ROLE_LEARNER) {
      return FinishLocked(*job, v1::JOB_STATE_FAILED,
                          absl::StrCat("learner ", FormatWorkerId(worker.id),
                                       ": ", counters.fatal_error()));
    }
    excluded->insert(*id);
    return store_->DeleteLease(Lease{*id, worker.role, worker.id, 0, 0});
  }
  if (worker.role != v1::WORKER_ROLE_LEARNER) return absl::OkStatus();
  job->learner_report = counters;
  const int64_t steps = job->budget.learner_steps();
  if (steps > 0 && counters.learner_step() >= steps) {
    return FinishLocked(*job, v1::JOB_STATE_DONE, "");
  }
  return store_->UpdateJob(*job);
}

absl::StatusOr<std::vector<int64_t>> Coordinator::RenewLeasesLocked(
    const WorkerRecord& worker, const absl::flat_hash_set<int64_t>& excluded) {
  ASSIGN_OR_RETURN(const std::vector<JobRecord> jobs, store_->ListJobs());
  ASSIGN_OR_RETURN(const std::vector<Lease> leases, store_->ListLeases());
  LeaseRequest request;
  request.worker_id = worker.id;
  request.role = worker.role;
  request.capacity = worker.capacity;
  request.max_running_jobs = options_.max_running_jobs;
  request.excluded = excluded;
  const int64_t now = NowMs();
  request.now_ms = now;
  request.rotation_ms = absl::ToInt64Milliseconds(options_.lease_rotation);
  if (worker.role == v1::WORKER_ROLE_LEARNER) {
    ASSIGN_OR_RETURN(request.actor_slots,
                     store_->LiveCapacity(
                         v1::WORKER_ROLE_ACTOR,
                         now - absl::ToInt64Milliseconds(options_.lease_ttl)));
  }
  for (const JobRecord& job : jobs) {
    request.jobs.push_back(PlannerJob{job.id, job.state});
  }
  request.live_leases = leases;  // expired ones were dropped just before
  const LeasePlan plan = PlanLeases(request);

  const int64_t expiry = now + absl::ToInt64Milliseconds(options_.lease_ttl);
  for (const Lease& lease : leases) {
    if (lease.worker_id != worker.id) continue;
    if (std::find(plan.jobs.begin(), plan.jobs.end(), lease.job_id) ==
        plan.jobs.end()) {
      RETURN_IF_ERROR(store_->DeleteLease(lease));
      NoteChangeLocked(lease.job_id);
    }
  }
  for (const int64_t job_id : plan.jobs) {
    const bool renewal =
        std::any_of(leases.begin(), leases.end(), [&](const Lease& lease) {
          return lease.job_id == job_id && lease.worker_id == worker.id &&
                 lease.role == worker.role;
        });
    RETURN_IF_ERROR(
        store_->PutLease(Lease{job_id, worker.role, worker.id, expiry, now}));
    // A new learner holder fences out every earlier one (lease_fence.h).
    if (!renewal && worker.role == v1::WORKER_ROLE_LEARNER) {
      RETURN_IF_ERROR(store_->NextLearnerEpoch(job_id).status());
    }
  }
  for (const int64_t job_id : plan.started) {
    ASSIGN_OR_RETURN(JobRecord job, store_->GetJob(job_id));
    job.state = v1::JOB_STATE_RUNNING;
    job.started_ms = NowMs();
    RETURN_IF_ERROR(store_->UpdateJob(job));
    NoteChangeLocked(job_id);
  }
  return plan.jobs;
}

absl::StatusOr<v1::Assignment> Coordinator::AssignmentLocked(
    const WorkerRecord& worker, int64_t job_id, const double* held) {
  const bool with_spec = held == nullptr;
  ASSIGN_OR_RETURN(const JobRecord job, store_->GetJob(job_id));
  v1::Assignment assignment;
  assignment.set_job_id(FormatJobId(job_id));
  assignment.set_job_uid(job.uid);
  assignment.set_role(worker.role);
  if (worker.role == v1::WORKER_ROLE_LEARNER) {
    assignment.set_lease_epoch(job.learner_epoch);
  }
  assignment.set_learner_steps_budget(job.budget.learner_steps());
  ASSIGN_OR_RETURN(const std::vector<Lease> leases, store_->ListLeases());
  for (const Lease& lease : leases) {
    if (lease.job_id != job_id) continue;
    if (lease.worker_id == worker.id && lease.role == worker.role) {
      assignment.set_lease_expiry_unix_ms(lease.expiry_ms);
      v1::LeaseTicket& ticket = *assignment.mutable_lease_ticket();
      ticket.set_job_id(assignment.job_id());
      ticket.set_worker_id(FormatWorkerId(worker.id));
      ticket.set_role(worker.role);
      ticket.set_expiry_unix_ms(lease.expiry_ms);
      ticket.set_grace_ms(absl::ToInt64Milliseconds(options_.lease_ttl));
      security::SignLeaseTicket(lease_key_, ticket);
    }
    if (lease.role != v1::WORKER_ROLE_LEARNER &&
        lease.role != v1::WORKER_ROLE_REPLAY) {
      continue;
    }
    ASSIGN_OR_RETURN(const WorkerRecord holder,
                     store_->GetWorker(lease.worker_id));
    if (lease.role == v1::WORKER_ROLE_LEARNER) {
      assignment.set_parameter_address(holder.address);
    } else {
      assignment.set_replay_address(holder.address);
    }
  }
  if (with_spec) {
    // The workload itself goes by FetchWorkload, never in a heartbeat.
    ASSIGN_OR_RETURN(const std::shared_ptr<const SerializedWorkload> workload,
                     SerializedWorkloadLocked(job_id));
    assignment.set_workload_bytes(
        static_cast<int64_t>(workload->bytes.size()));
    assignment.set_workload_crc32c(workload->crc32c);
    *assignment.mutable_config() = job.config;
  }
  // Actors start games from the best they were sent with the spec; the
  // learner turns every best into a demonstration, so it gets each new one
  // until its heartbeat says it holds it (or a better one).
  // Only the return is read to decide, so a learner's heartbeat parses no
  // solution while it holds the best.
  bool send_best = with_spec;
  if (!with_spec && worker.role == v1::WORKER_ROLE_LEARNER) {
    absl::StatusOr<double> best_return = store_->GetBestReturn(job_id);
    if (!best_return.ok() && !absl::IsNotFound(best_return.status())) {
      return best_return.status();
    }
    send_best = best_return.ok() && *best_return > *held + kImprovementEpsilon;
  }
  if (send_best) {
    absl::StatusOr<BestSolution> best = store_->GetBest(job_id);
    if (best.ok()) {
      *assignment.mutable_best() = std::move(best->solution);
    } else if (!absl::IsNotFound(best.status())) {
      return best.status();
    }
  }
  return assignment;
}

absl::StatusOr<v1::HeartbeatResponse> Coordinator::Heartbeat(
    const v1::HeartbeatRequest& request) {
  ASSIGN_OR_RETURN(const int64_t worker_id,
                   ParseWorkerId("worker_id", request.worker_id()));
  RETURN_IF_ERROR(CheckHeartbeat(request));
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  v1::HeartbeatResponse response;
  WorkerRecord record;
  if (const absl::Status transaction = store_->InTransaction(
          [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
            absl::StatusOr<WorkerRecord> worker = store_->GetWorker(worker_id);
            if (absl::IsNotFound(worker.status()))
              return WorkerNotFound(worker_id);
            RETURN_IF_ERROR(worker.status());
            record = *worker;
            RETURN_IF_ERROR(store_->TouchWorker(worker_id, NowMs()));
            RETURN_IF_ERROR(DropExpiredLeasesLocked());
            absl::flat_hash_map<int64_t, double> reported;
            absl::flat_hash_set<int64_t> excluded;
            for (const v1::JobCounters& counters : request.jobs()) {
              RETURN_IF_ERROR(
                  ApplyCountersLocked(*worker, counters, &reported, &excluded));
            }
            ASSIGN_OR_RETURN(const std::vector<int64_t> jobs,
                             RenewLeasesLocked(*worker, excluded));
            if (!request.stored_jobs().empty()) {
              ASSIGN_OR_RETURN(
                  const std::vector<v1::StoredJob> deleted,
                  store_->DeletedAmong({request.stored_jobs().begin(),
                                        request.stored_jobs().end()}));
              for (const v1::StoredJob& job : deleted) {
                *response.add_deleted_jobs() = job;
              }
            }
            for (const int64_t job_id : jobs) {
              const auto held = reported.find(job_id);
              ASSIGN_OR_RETURN(
                  *response.add_assignments(),
                  AssignmentLocked(
                      *worker, job_id,
                      held == reported.end() ? nullptr : &held->second));
            }
            return absl::OkStatus();
          });
      !transaction.ok()) {
    return transaction;
  }
  WorkerView& view = worker_views_[worker_id];
  view.worker_id = request.worker_id();
  view.name = record.name;
  view.role = record.role;
  view.last_heartbeat_unix_ms = NowMs();
  view.parameter_versions.clear();
  for (const v1::JobCounters& counters : request.jobs()) {
    view.parameter_versions[counters.job_id()] = counters.parameter_version();
  }
  response.set_heartbeat_interval_ms(
      absl::ToInt64Milliseconds(options_.heartbeat_interval));
  if (record.role == v1::WORKER_ROLE_REPLAY) {
    response.set_lease_key(lease_key_);
  }
  return response;
}

std::vector<WorkerView> Coordinator::LiveWorkers() const {
  absl::MutexLock lock(&mu_);
  const int64_t since = NowMs() - absl::ToInt64Milliseconds(options_.lease_ttl);
  std::vector<WorkerView> live;
  for (const auto& [id, view] : worker_views_) {
    if (view.last_heartbeat_unix_ms >= since) live.push_back(view);
  }
  return live;
}

absl::StatusOr<std::shared_ptr<const SerializedWorkload>>
Coordinator::WorkloadForWorker(const std::string& worker_text,
                               const std::string& job_text) {
  ASSIGN_OR_RETURN(const int64_t worker_id,
                   ParseWorkerId("worker_id", worker_text));
  ASSIGN_OR_RETURN(const int64_t job_id, ParseJobId("job_id", job_text));
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  absl::StatusOr<WorkerRecord> worker = store_->GetWorker(worker_id);
  if (absl::IsNotFound(worker.status())) return WorkerNotFound(worker_id);
  RETURN_IF_ERROR(worker.status());
  RETURN_IF_ERROR(JobLocked(job_id).status());
  ASSIGN_OR_RETURN(const std::vector<Lease> leases, store_->ListLeases());
  const int64_t now = NowMs();
  const bool holds = std::any_of(
      leases.begin(), leases.end(), [&](const Lease& lease) {
        return lease.job_id == job_id && lease.worker_id == worker_id &&
               lease.expiry_ms > now;
      });
  if (!holds) {
    return absl::PermissionDeniedError(
        absl::StrCat("worker_id: ", worker_text, " holds no lease on ",
                     job_text,
                     "; only a job's workers may fetch its workload"));
  }
  return SerializedWorkloadLocked(job_id);
}

absl::StatusOr<v1::ReportSolutionResponse> Coordinator::ReportSolution(
    const v1::ReportSolutionRequest& request, const Caller& caller) {
  ASSIGN_OR_RETURN(const int64_t job_id,
                   ParseJobId("job_id", request.job_id()));
  if (!request.has_solution()) {
    return absl::InvalidArgumentError("solution: required");
  }
  std::shared_ptr<const Workload> workload;
  std::string solver_name = request.solution().solver().name();
  {
    absl::MutexLock lock(&mu_);
    RETURN_IF_ERROR(CheckOpenLocked());
    ASSIGN_OR_RETURN(const JobRecord job, JobLocked(job_id));
    if (job.state == v1::JOB_STATE_SEEDING) {
      return absl::FailedPreconditionError(
          absl::StrCat("job_id: job '", request.job_id(),
                       "' is seeding; solutions are taken once it is queued"));
    }
    if (!request.worker_id().empty()) {
      ASSIGN_OR_RETURN(const int64_t worker_id,
                       ParseWorkerId("worker_id", request.worker_id()));
      absl::StatusOr<WorkerRecord> worker = store_->GetWorker(worker_id);
      if (absl::IsNotFound(worker.status())) return WorkerNotFound(worker_id);
      RETURN_IF_ERROR(worker.status());
      if (solver_name.empty()) solver_name = rpc::WorkerRoleName(worker->role);
    }
    // Only the job's workers write to it (an unknown job or worker is
    // NotFound first: that says more).
    RETURN_IF_ERROR(rpc::CheckWriterLease(
        caller,
        {.method = "ReportSolution",
         .job_id = request.job_id(),
         .worker_id = request.worker_id(),
         .ticket = &request.lease_ticket()},
        lease_key_, {v1::WORKER_ROLE_ACTOR}, NowMs()));
    ASSIGN_OR_RETURN(workload, WorkloadLocked(job_id));
  }

  // Outside the lock: the replay costs a game's worth of work.
  absl::StatusOr<Solution> verified =
      VerifySolution(*workload, request.solution());

  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  ASSIGN_OR_RETURN(const BestSolution best, store_->GetBest(job_id));
  const double best_return = best.solution.normalised_return();
  v1::ReportSolutionResponse response;
  response.set_best_normalised_return(best_return);
  if (!verified.ok()) {
    response.set_reason(absl::StrCat("invalid: ", verified.status().message()));
    return response;
  }
  const double claimed = request.solution().normalised_return();
  const double actual = verified->normalised_return();
  response.set_validated_normalised_return(actual);
  const std::string claim_note =
      std::abs(claimed - actual) > 1e-6 * std::max(1.0, std::abs(actual))
          ? absl::StrFormat(" (claimed %.6f)", claimed)
          : "";
  // Better means faster: the lower simulated latency, a tie to the higher
  // return (faster_solution.h).
  if (!validate::FasterThan(*verified, best.solution)) {
    response.set_reason(absl::StrFormat(
        "valid, simulated latency %.6g us (normalised return %.6f%s) is not "
        "faster than the best's %.6g us (%.6f)",
        verified->simulated_latency_us(), actual, claim_note,
        best.solution.simulated_latency_us(), best_return));
    return response;
  }
  verified->mutable_solver()->set_name(solver_name.empty() ? "reported"
                                                           : solver_name);
  BestSolution next{.job_id = job_id,
                    .solution = *std::move(verified),
                    .worker_id = request.worker_id(),
                    .found_ms = NowMs()};
  RETURN_IF_ERROR(store_->PutBest(next));
  NoteChangeLocked(job_id, /*best=*/true);
  response.set_accepted(true);
  response.set_best_normalised_return(actual);
  response.set_reason(absl::StrFormat(
      "accepted: simulated latency %.6g us, normalised return %.6f%s, "
      "replaces %.6g us (%.6f)",
      next.solution.simulated_latency_us(), actual, claim_note,
      best.solution.simulated_latency_us(), best_return));
  return response;
}

}  // namespace mmapzero::coordinator
