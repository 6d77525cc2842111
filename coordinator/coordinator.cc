// The job side of the Coordinator and what both sides share; the worker
// side (register, heartbeat, reports) is coordinator_workers.cc.
#include "coordinator/coordinator.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/base/random_hex.h"
#include "common/base/status_macros.h"
#include "common/rpc/enum_names.h"
#include "common/rpc/parameter_client.h"
#include "common/rpc/start_worker_id.h"
#include "common/service/log_line.h"
#include "common/validate/faster_solution.h"
#include "coordinator/ids.h"
#include "coordinator/lease_key.h"
#include "coordinator/request_checks.h"
#include "coordinator/verified_solution.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace mmapzero::coordinator {
namespace {

absl::Status CheckOptions(const CoordinatorOptions& options) {
  if (options.data_dir.empty()) {
    return absl::InvalidArgumentError("data_dir: required");
  }
  if (options.heartbeat_interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("heartbeat_interval: must be > 0, got ",
                     absl::FormatDuration(options.heartbeat_interval)));
  }
  if (options.lease_ttl <= options.heartbeat_interval) {
    return absl::InvalidArgumentError(
        absl::StrCat("lease_ttl: must exceed heartbeat_interval (",
                     absl::FormatDuration(options.heartbeat_interval),
                     "), got ", absl::FormatDuration(options.lease_ttl)));
  }
  if (options.max_running_jobs < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_running_jobs: must be >= 0 (0: no limit), got ",
                     options.max_running_jobs));
  }
  if (options.lease_rotation < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("lease_rotation: must be >= 0 (0: never), got ",
                     absl::FormatDuration(options.lease_rotation)));
  }
  if (options.max_active_jobs_per_identity < 0 ||
      options.max_stored_bytes_per_identity < 0 ||
      options.max_finished_jobs < 0 ||
      options.finished_job_retention < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_active_jobs_per_identity, max_stored_bytes_per_identity, "
        "max_finished_jobs, finished_job_retention: must be >= 0 (0: no "
        "limit), got ",
        options.max_active_jobs_per_identity, ", ",
        options.max_stored_bytes_per_identity, ", ", options.max_finished_jobs,
        ", ", absl::FormatDuration(options.finished_job_retention)));
  }
  if (options.max_seed_solves < 1 || options.max_seed_solves > 1024) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_seed_solves: must be 1 to 1024, got ", options.max_seed_solves));
  }
  if (options.heuristic_budget <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("heuristic_budget: must be > 0, got ",
                     absl::FormatDuration(options.heuristic_budget)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Coordinator>> Coordinator::Open(
    CoordinatorOptions options) {
  RETURN_IF_ERROR(CheckOptions(options));
  if (!options.clock) options.clock = [] { return absl::Now(); };
  ASSIGN_OR_RETURN(std::unique_ptr<JobStore> store,
                   JobStore::Open(options.data_dir));
  ASSIGN_OR_RETURN(const std::vector<JobRecord> jobs, store->ListJobs());
  ASSIGN_OR_RETURN(std::string lease_key, LoadOrCreateLeaseKey(options.data_dir));
  std::unique_ptr<Coordinator> coordinator(
      new Coordinator(std::move(options), std::move(store)));
  coordinator->lease_key_ = std::move(lease_key);
  ASSIGN_OR_RETURN(coordinator->audit_,
                   AuditLog::Open((std::filesystem::path(
                                       coordinator->options_.data_dir) /
                                   "audit.jsonl")
                                      .string()));
  Coordinator* raw = coordinator.get();
  const int solves = coordinator->options_.max_seed_solves;
  coordinator->seeds_ = std::make_unique<SeedQueue>(
      solves, kSeedsWaitingPerSolve * solves,
      [raw](int64_t job_id, const SeedQueue::StopRequested& stop_requested) {
        raw->SeedJob(job_id, stop_requested);
      });
  // Jobs submitted before a stop whose seed solve never ran: oldest first.
  for (auto it = jobs.rbegin(); it != jobs.rend(); ++it) {
    if (it->state != v1::JOB_STATE_SEEDING) continue;
    RETURN_IF_ERROR(coordinator->seeds_->Add(it->id, /*force=*/true));
    service::LogLine("info", "seed_requeued", {{"job", FormatJobId(it->id)}});
  }
  return coordinator;
}

Coordinator::~Coordinator() {
  Close();
  if (seeds_ != nullptr) seeds_->Stop();
}

void Coordinator::Audit(const std::string& event, const Caller& caller,
                        const AuditLog::Fields& fields) {
  const absl::Status written =
      audit_->Record(options_.clock(), event, caller.identity, fields);
  if (!written.ok()) {
    service::LogLine("warning", "audit_failed",
                     {{"event", event}, {"error", written.ToString()}});
  }
}

int64_t Coordinator::NowMs() const {
  return absl::ToUnixMillis(options_.clock());
}

absl::Status Coordinator::CheckOpenLocked() const {
  if (closed_)
    return absl::UnavailableError("the coordinator is shutting down");
  return absl::OkStatus();
}

absl::StatusOr<JobRecord> Coordinator::JobLocked(int64_t job_id) {
  absl::StatusOr<JobRecord> job = store_->GetJob(job_id);
  if (absl::IsNotFound(job.status())) {
    return absl::NotFoundError(
        absl::StrCat("job_id: no job '", FormatJobId(job_id), "'"));
  }
  return job;
}

absl::StatusOr<std::shared_ptr<const Workload>> Coordinator::WorkloadLocked(
    int64_t job_id) {
  auto it = workloads_.find(job_id);
  if (it != workloads_.end()) return it->second;
  ASSIGN_OR_RETURN(Workload workload, store_->GetWorkload(job_id));
  auto shared = std::make_shared<const Workload>(std::move(workload));
  workloads_[job_id] = shared;
  return shared;
}

absl::StatusOr<std::shared_ptr<const SerializedWorkload>>
Coordinator::SerializedWorkloadLocked(int64_t job_id) {
  auto it = serialized_workloads_.find(job_id);
  if (it != serialized_workloads_.end()) return it->second;
  ASSIGN_OR_RETURN(const std::shared_ptr<const Workload> workload,
                   WorkloadLocked(job_id));
  auto serialized = std::make_shared<SerializedWorkload>();
  if (!workload->SerializeToString(&serialized->bytes)) {
    return absl::InternalError(absl::StrCat(
        "the workload of ", FormatJobId(job_id), " does not serialise"));
  }
  serialized->crc32c = rpc::Crc32c(serialized->bytes);
  serialized_workloads_[job_id] = serialized;
  return std::shared_ptr<const SerializedWorkload>(std::move(serialized));
}

namespace {

// JobStatus's seed stage, start and agent_speedup from the job's record
// and the best already in `status`. The start is the first best the job
// had: the seed stage's when it was faster than the heuristic's seed (by
// FasterThan, as SeedJob decides), else the heuristic's.
void SetStartFigures(const JobRecord& job, v1::JobStatus* status) {
  status->set_seed_stage_normalised_return(job.seed_stage_normalised_return);
  status->set_seed_stage_latency_us(job.seed_stage_latency_us);
  status->set_seed_stage_solver(job.seed_stage_solver);
  const auto figures = [](double normalised_return, double latency_us) {
    Solution solution;
    solution.set_normalised_return(normalised_return);
    solution.set_simulated_latency_us(latency_us);
    return solution;
  };
  const bool heuristic_known = job.heuristic_latency_us > 0;
  const bool seed_stage = job.seed_stage_latency_us > 0;
  if (seed_stage &&
      (!heuristic_known ||
       validate::FasterThan(figures(job.seed_stage_normalised_return,
                                    job.seed_stage_latency_us),
                            figures(job.heuristic_normalised_return,
                                    job.heuristic_latency_us)))) {
    status->set_start_normalised_return(job.seed_stage_normalised_return);
    status->set_start_latency_us(job.seed_stage_latency_us);
    status->set_start_solver(job.seed_stage_solver);
  } else if (heuristic_known) {
    status->set_start_normalised_return(job.heuristic_normalised_return);
    status->set_start_latency_us(job.heuristic_latency_us);
    status->set_start_solver("heuristic");
  }
  if (status->start_latency_us() > 0 && status->best_latency_us() > 0) {
    status->set_agent_speedup(status->start_latency_us() /
                              status->best_latency_us());
  }
}

}  // namespace

absl::StatusOr<v1::JobStatus> Coordinator::StatusLocked(const JobRecord& job) {
  v1::JobStatus status;
  status.set_job_id(FormatJobId(job.id));
  status.set_name(job.name);
  status.set_state(job.state);
  status.set_workload_name(job.workload_name);
  status.set_num_buffers(job.num_buffers);
  status.set_preset(job.config.preset());
  *status.mutable_budget() = job.budget;
  status.set_created_unix_ms(job.created_ms);
  status.set_started_unix_ms(job.started_ms);
  status.set_finished_unix_ms(job.finished_ms);
  status.set_checkpoint_fallback(job.checkpoint_fallback);
  status.set_learner_step(job.learner_report.learner_step());
  status.set_parameter_version(job.learner_report.parameter_version());
  *status.mutable_losses() = job.learner_report.losses();
  status.set_heuristic_normalised_return(job.heuristic_normalised_return);
  status.set_heuristic_latency_us(job.heuristic_latency_us);
  status.set_error(job.error);

  ASSIGN_OR_RETURN(const WorkCounters counters, store_->SumCounters(job.id));
  status.set_games(counters.games);
  status.set_moves(counters.moves);
  status.set_simulations(counters.simulations);
  status.set_reanalysed(counters.reanalysed);
  status.set_best_starts(counters.best_starts);
  status.set_followed_moves(counters.followed_moves);
  status.set_rejoined(counters.rejoined);
  status.set_unchanged(counters.unchanged);
  status.set_best_start_window(counters.best_start_window);

  // None yet while seeding without a start.
  const absl::StatusOr<BestSolution> best = store_->GetBest(job.id);
  if (best.ok()) {
    status.set_best_normalised_return(best->solution.normalised_return());
    status.set_best_latency_us(best->solution.simulated_latency_us());
    status.set_best_solver(best->solution.solver().name());
  } else if (!absl::IsNotFound(best.status())) {
    return best.status();
  }
  SetStartFigures(job, &status);
  status.set_initial_network(job.initial_network);
  status.set_owner(job.owner);
  const absl::StatusOr<JobNetwork> network =
      store_->GetJobNetwork(job.id, JobNetworkKind::kLatest, false);
  if (network.ok()) {
    status.set_network_sha256(network->sha256);
    status.set_network_learner_step(network->learner_step);
  } else if (!absl::IsNotFound(network.status())) {
    return network.status();
  }

  ASSIGN_OR_RETURN(const std::vector<Lease> leases, store_->ListLeases());
  const int64_t now = NowMs();
  for (const Lease& lease : leases) {
    if (lease.job_id != job.id || lease.expiry_ms <= now) continue;
    switch (lease.role) {
      case v1::WORKER_ROLE_LEARNER:
        status.set_learner_worker_id(FormatWorkerId(lease.worker_id));
        break;
      case v1::WORKER_ROLE_ACTOR:
        status.set_actors(status.actors() + 1);
        break;
      case v1::WORKER_ROLE_REANALYSE:
        status.set_reanalysers(status.reanalysers() + 1);
        break;
      default:
        break;
    }
  }
  return status;
}

absl::Status Coordinator::FinishLocked(JobRecord& job, v1::JobState state,
                                       const std::string& error) {
  job.state = state;
  job.finished_ms = NowMs();
  job.error = error;
  RETURN_IF_ERROR(store_->UpdateJob(job));
  absl::erase_if(ended_learners_, [&job](const auto& entry) {
    return job.finished_ms - entry.second.ended_ms >= kLateNetworkReportMs;
  });
  ASSIGN_OR_RETURN(const std::vector<Lease> leases, store_->ListLeases());
  for (const Lease& lease : leases) {
    if (lease.job_id == job.id && lease.role == v1::WORKER_ROLE_LEARNER) {
      ended_learners_[job.id] = {lease.worker_id, job.finished_ms};
    }
  }
  RETURN_IF_ERROR(store_->DeleteJobLeases(job.id));
  NoteChangeLocked(job.id);
  return absl::OkStatus();
}

absl::Status Coordinator::DropExpiredLeasesLocked() {
  ASSIGN_OR_RETURN(const std::vector<Lease> expired,
                   store_->DeleteExpiredLeases(NowMs()));
  for (const Lease& lease : expired) NoteChangeLocked(lease.job_id);
  return absl::OkStatus();
}

void Coordinator::NoteChangeLocked(int64_t job_id, bool best) {
  Changes& changes = changes_[job_id];
  ++changes.change;
  if (best) ++changes.best_change;
}

namespace {

// The submission key of `request` (none without a request_id): the key and
// a CRC32C of the rest of the request, serialised deterministically.
std::optional<SubmitKey> SubmitKeyOf(const v1::SubmitJobRequest& request) {
  if (request.request_id().empty()) return std::nullopt;
  v1::SubmitJobRequest rest = request;
  rest.clear_request_id();
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    rest.SerializeToCodedStream(&coded);
  }
  SubmitKey key;
  key.key = request.request_id();
  key.fingerprint = rpc::Crc32c(bytes);
  return key;
}

}  // namespace

absl::StatusOr<std::optional<v1::SubmitJobResponse>>
Coordinator::EarlierSubmitLocked(const SubmitKey& key) {
  ASSIGN_OR_RETURN(const std::optional<SubmitKey> found,
                   store_->FindSubmitKey(key.key));
  if (!found.has_value()) return std::optional<v1::SubmitJobResponse>();
  if (found->fingerprint != key.fingerprint) {
    return absl::AlreadyExistsError(absl::StrCat(
        "request_id '", key.key, "' was used for ", FormatJobId(found->job_id),
        " with another request; choose a new request_id"));
  }
  ASSIGN_OR_RETURN(const JobRecord job, JobLocked(found->job_id));
  v1::SubmitJobResponse response;
  response.set_job_id(FormatJobId(job.id));
  ASSIGN_OR_RETURN(*response.mutable_job(), StatusLocked(job));
  return std::optional<v1::SubmitJobResponse>(std::move(response));
}

absl::Status Coordinator::CheckOwner(const JobRecord& job,
                                     const Caller& caller,
                                     absl::string_view method) {
  if (caller.Owns(job.owner)) return absl::OkStatus();
  service::LogLine("warning", "refused",
                   {{"method", std::string(method)},
                    {"caller", caller.identity},
                    {"job", FormatJobId(job.id)}});
  return absl::PermissionDeniedError(absl::StrCat(
      "job_id: ", FormatJobId(job.id),
      " belongs to another identity; a client reads, watches and cancels "
      "only the jobs it submitted (an admin, every job)"));
}

absl::StatusOr<JobRecord> Coordinator::OwnedJobLocked(
    int64_t job_id, const Caller& caller, absl::string_view method) {
  ASSIGN_OR_RETURN(JobRecord job, JobLocked(job_id));
  RETURN_IF_ERROR(CheckOwner(job, caller, method));
  return job;
}

absl::Status Coordinator::CheckIdentityLimitsLocked(const Caller& caller,
                                                    int64_t workload_bytes,
                                                    absl::string_view method) {
  if (caller.OwnsEverything()) return absl::OkStatus();
  const int32_t max_active = options_.max_active_jobs_per_identity;
  const int64_t max_bytes = options_.max_stored_bytes_per_identity;
  if (max_active == 0 && max_bytes == 0) return absl::OkStatus();
  ASSIGN_OR_RETURN(const JobStore::OwnerUsage usage,
                   store_->UsageOf(caller.identity));
  std::string refusal;
  if (max_active > 0 && usage.active_jobs >= max_active) {
    refusal = absl::StrCat(
        caller.identity, " has ", usage.active_jobs,
        " jobs not yet finished, the most one identity may have "
        "(max_active_jobs_per_identity ",
        max_active, "); wait for one to finish or cancel one");
  } else if (max_bytes > 0 && usage.stored_bytes + workload_bytes > max_bytes) {
    refusal = absl::StrCat(
        caller.identity, "'s jobs hold ", usage.stored_bytes,
        " bytes and this workload is ", workload_bytes,
        " more, over the most one identity may store "
        "(max_stored_bytes_per_identity ",
        max_bytes, "); delete finished jobs (mmapctl delete)");
  } else {
    return absl::OkStatus();
  }
  service::LogLine("warning", "refused",
                   {{"method", std::string(method)},
                    {"caller", caller.identity},
                    {"reason", refusal}});
  return absl::ResourceExhaustedError(refusal);
}

absl::StatusOr<v1::SubmitJobResponse> Coordinator::SubmitJob(
    const v1::SubmitJobRequest& request, const Caller& caller) {
  RETURN_IF_ERROR(CheckSubmittedWorkload(request));
  ASSIGN_OR_RETURN(const v1::Budget budget, CheckBudget(request.budget()));
  ASSIGN_OR_RETURN(const MuZeroConfig config, TrainingConfigOf(request));
  const std::optional<SubmitKey> key = SubmitKeyOf(request);
  const Workload& workload = request.workload();
  // A submitted start is checked as a report is (outside the lock); it is
  // the job's first best until a better seed replaces it.
  std::optional<BestSolution> start;
  if (request.has_start()) {
    absl::StatusOr<Solution> verified =
        VerifySolution(workload, request.start());
    if (!verified.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("start: ", verified.status().message()));
    }
    start.emplace();
    start->solution = *std::move(verified);
    start->worker_id = std::string(rpc::kStartWorkerId);
  }

  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  if (key.has_value()) {  // a resent submit gets the job the first made
    ASSIGN_OR_RETURN(std::optional<v1::SubmitJobResponse> earlier,
                     EarlierSubmitLocked(*key));
    if (earlier.has_value()) {
      // Another identity's key: its job is not this caller's to see.
      if (!caller.Owns(earlier->job().owner())) {
        return absl::AlreadyExistsError(absl::StrCat(
            "request_id '", key->key,
            "' is taken by another identity's submission; choose a new "
            "request_id"));
      }
      return *std::move(earlier);
    }
  }
  // Refused before anything is stored; only this method adds (under mu_),
  // so the room checked here is still there below.
  RETURN_IF_ERROR(seeds_->CheckRoom());
  RETURN_IF_ERROR(CheckIdentityLimitsLocked(
      caller, static_cast<int64_t>(workload.ByteSizeLong()), "SubmitJob"));
  JobRecord job;
  job.uid = RandomHex128();  // never reused, unlike job ids
  job.name = JobNameOf(request);
  job.owner = caller.identity;
  job.state = v1::JOB_STATE_SEEDING;
  job.config = config;
  job.budget = budget;
  ASSIGN_OR_RETURN(const std::optional<JobNetwork> start_network,
                   ResolveStartNetworkLocked(&job, caller));
  job.workload_name = workload.name();
  job.num_buffers = workload.buffers_size();
  job.created_ms = NowMs();
  if (start.has_value()) {
    start->found_ms = job.created_ms;
    job.seed_stage_normalised_return = start->solution.normalised_return();
    job.seed_stage_latency_us = start->solution.simulated_latency_us();
    job.seed_stage_solver = start->solution.solver().name().empty()
                                ? "start"
                                : start->solution.solver().name();
  }
  RETURN_IF_ERROR(store_->InTransaction(
      [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
        ASSIGN_OR_RETURN(job.id, store_->CreateJob(
                                     job, workload,
                                     start.has_value() ? &*start : nullptr,
                                     key.has_value() ? &*key : nullptr));
        if (!start_network.has_value()) return absl::OkStatus();
        JobNetwork copy = *start_network;
        copy.job_id = job.id;
        return store_->PutJobNetwork(copy);
      }));
  workloads_[job.id] = std::make_shared<const Workload>(workload);
  NoteChangeLocked(job.id, /*best=*/start.has_value());
  // Cannot fail after CheckRoom but by a stop, which leaves the job
  // SEEDING for the next coordinator to seed.
  if (const absl::Status queued = seeds_->Add(job.id); !queued.ok()) {
    service::LogLine("warning", "seed_not_queued",
                     {{"job", FormatJobId(job.id)},
                      {"error", std::string(queued.message())}});
  }

  service::LogLine("info", "job_submitted",
                   {{"job", FormatJobId(job.id)},
                    {"owner", job.owner},
                    {"buffers", absl::StrCat(job.num_buffers)}});
  Audit("job_submitted", caller,
        {{"job", FormatJobId(job.id)},
         {"name", job.name},
         {"buffers", absl::StrCat(job.num_buffers)}});
  v1::SubmitJobResponse response;
  response.set_job_id(FormatJobId(job.id));
  ASSIGN_OR_RETURN(*response.mutable_job(), StatusLocked(job));
  return response;
}

void Coordinator::SeedJob(int64_t job_id,
                          const SeedQueue::StopRequested& stop_requested) {
  std::shared_ptr<const Workload> workload;
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return;  // seeded by the next coordinator
    absl::StatusOr<JobRecord> job = JobLocked(job_id);
    if (!job.ok() || job->state != v1::JOB_STATE_SEEDING) return;
    absl::StatusOr<std::shared_ptr<const Workload>> loaded =
        WorkloadLocked(job_id);
    if (loaded.ok()) workload = *std::move(loaded);
  }
  absl::StatusOr<Solution> seed =
      workload == nullptr
          ? absl::StatusOr<Solution>(
                absl::DataLossError("the stored workload cannot be read"))
          : SolveSeed(*workload, options_.seed_solver,
                      options_.heuristic_budget, stop_requested);

  absl::MutexLock lock(&mu_);
  if (closed_) return;
  absl::StatusOr<JobRecord> job = JobLocked(job_id);
  // Cancelled while seeding: it stays cancelled.
  if (!job.ok() || job->state != v1::JOB_STATE_SEEDING) return;
  const absl::Status stored = store_->InTransaction(
      [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
        if (!seed.ok()) {
          return FinishLocked(
              *job, v1::JOB_STATE_FAILED,
              absl::StrCat("seed solve: ", seed.status().message()));
        }
        job->state = v1::JOB_STATE_QUEUED;
        job->heuristic_normalised_return = seed->normalised_return();
        job->heuristic_latency_us = seed->simulated_latency_us();
        RETURN_IF_ERROR(store_->UpdateJob(*job));
        const absl::StatusOr<BestSolution> start = store_->GetBest(job_id);
        if (!start.ok() && !absl::IsNotFound(start.status())) {
          return start.status();
        }
        // The seed is the first best unless a submitted start is faster.
        if (start.ok() && validate::FasterThan(start->solution, *seed)) {
          return absl::OkStatus();
        }
        BestSolution best;
        best.job_id = job_id;
        best.solution = *std::move(seed);
        best.found_ms = job->created_ms;
        return store_->PutBest(best);
      });
  if (!stored.ok()) {
    service::LogLine("error", "seed_not_stored",
                     {{"job", FormatJobId(job_id)},
                      {"error", std::string(stored.message())}});
    return;
  }
  NoteChangeLocked(job_id, /*best=*/true);
}

absl::StatusOr<v1::ListJobsResponse> Coordinator::ListJobs(
    const v1::ListJobsRequest& request, const Caller& caller) {
  RETURN_IF_ERROR(CheckListJobs(request));
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  ASSIGN_OR_RETURN(const std::vector<JobRecord> jobs, store_->ListJobs());
  v1::ListJobsResponse response;
  for (const JobRecord& job : jobs) {
    if (request.limit() > 0 && response.jobs_size() >= request.limit()) break;
    const bool wanted =
        request.states().empty() ||
        std::find(request.states().begin(), request.states().end(),
                  job.state) != request.states().end();
    if (!wanted || !caller.Owns(job.owner)) continue;
    ASSIGN_OR_RETURN(*response.add_jobs(), StatusLocked(job));
  }
  return response;
}

absl::StatusOr<v1::JobStatus> Coordinator::GetJob(
    const v1::GetJobRequest& request, const Caller& caller) {
  ASSIGN_OR_RETURN(const int64_t id, ParseJobId("job_id", request.job_id()));
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  ASSIGN_OR_RETURN(const JobRecord job, OwnedJobLocked(id, caller, "GetJob"));
  return StatusLocked(job);
}

absl::Status Coordinator::CheckJobOwner(const std::string& job_id,
                                        const Caller& caller,
                                        absl::string_view method) {
  if (caller.OwnsEverything()) return absl::OkStatus();
  const absl::StatusOr<int64_t> id = ParseJobId("job_id", job_id);
  if (!id.ok()) return absl::OkStatus();
  absl::MutexLock lock(&mu_);
  const absl::StatusOr<JobRecord> job = JobLocked(*id);
  return job.ok() ? CheckOwner(*job, caller, method) : absl::OkStatus();
}

absl::StatusOr<v1::JobStatus> Coordinator::CancelJob(
    const v1::CancelJobRequest& request, const Caller& caller) {
  ASSIGN_OR_RETURN(const int64_t id, ParseJobId("job_id", request.job_id()));
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  ASSIGN_OR_RETURN(JobRecord job, OwnedJobLocked(id, caller, "CancelJob"));
  if (job.state == v1::JOB_STATE_DONE || job.state == v1::JOB_STATE_FAILED) {
    return absl::FailedPreconditionError(absl::StrCat(
        "job_id: job '", request.job_id(), "' is ",
        v1::JobState_Name(job.state),
        "; only a seeding, queued or running job can be cancelled"));
  }
  const bool seeding = job.state == v1::JOB_STATE_SEEDING;
  if (job.state != v1::JOB_STATE_CANCELLED) {
    const std::string reason =
        request.reason().empty()
            ? "cancelled"
            : absl::StrCat("cancelled: ", request.reason());
    if (const absl::Status transaction =
            store_->InTransaction([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
              return FinishLocked(job, v1::JOB_STATE_CANCELLED, reason);
            });
        !transaction.ok()) {
      return transaction;
    }
    service::LogLine("info", "job_cancelled",
                     {{"job", FormatJobId(job.id)},
                      {"by", caller.identity},
                      {"reason", reason}});
    Audit("job_cancelled", caller,
          {{"job", FormatJobId(job.id)}, {"reason", reason}});
  }
  if (seeding) seeds_->Cancel(id);  // its seed solve stops: no longer needed
  return StatusLocked(job);
}

absl::StatusOr<v1::GetBestSolutionResponse> Coordinator::GetBestSolution(
    const v1::GetBestSolutionRequest& request, const Caller& caller) {
  ASSIGN_OR_RETURN(const int64_t id, ParseJobId("job_id", request.job_id()));
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  ASSIGN_OR_RETURN(const JobRecord job,
                   OwnedJobLocked(id, caller, "GetBestSolution"));
  absl::StatusOr<BestSolution> found = store_->GetBest(id);
  if (absl::IsNotFound(found.status())) {
    return absl::FailedPreconditionError(absl::StrCat(
        "job_id: job '", request.job_id(), "' is ",
        rpc::JobStateName(job.state),
        " and has no solution yet: its seed solve has not run; try again "
        "in a few seconds"));
  }
  ASSIGN_OR_RETURN(BestSolution best, std::move(found));
  v1::GetBestSolutionResponse response;
  *response.mutable_solution() = std::move(best.solution);
  response.set_worker_id(best.worker_id);
  response.set_found_unix_ms(best.found_ms);
  if (request.include_workload()) {
    ASSIGN_OR_RETURN(const std::shared_ptr<const Workload> workload,
                     WorkloadLocked(id));
    *response.mutable_workload() = *workload;
  }
  return response;
}

absl::StatusOr<v1::JobDetails> Coordinator::GetJobDetails(
    const v1::GetJobDetailsRequest& request, const Caller& caller) {
  ASSIGN_OR_RETURN(const int64_t id, ParseJobId("job_id", request.job_id()));
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  ASSIGN_OR_RETURN(const JobRecord job,
                   OwnedJobLocked(id, caller, "GetJobDetails"));
  ASSIGN_OR_RETURN(const std::vector<JobSample> samples,
                   store_->JobSamplesOf(id));
  v1::JobDetails details;
  ASSIGN_OR_RETURN(*details.mutable_job(), StatusLocked(job));
  *details.mutable_config() = job.config;
  ASSIGN_OR_RETURN(const std::shared_ptr<const Workload> workload,
                   WorkloadLocked(id));
  *details.mutable_workload() = *workload;
  for (const JobSample& sample : samples) {
    v1::JobHistorySample& out = *details.add_history();
    out.set_unix_ms(sample.unix_ms);
    out.set_best_normalised_return(sample.best_normalised_return);
    out.set_best_latency_us(sample.best_latency_us);
    out.set_learner_step(sample.learner_step);
    out.set_games(sample.games);
    out.set_moves(sample.moves);
  }
  return details;
}

namespace {

absl::Status CheckAddedWallSeconds(int64_t seconds) {
  if (seconds >= 1 && seconds <= kMaxWallSeconds) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("wall_seconds: must be in [1, ", kMaxWallSeconds, "], got ",
                   seconds));
}

}  // namespace

absl::StatusOr<v1::JobStatus> Coordinator::ExtendJob(
    const v1::ExtendJobRequest& request, const Caller& caller) {
  ASSIGN_OR_RETURN(const int64_t id, ParseJobId("job_id", request.job_id()));
  RETURN_IF_ERROR(CheckAddedWallSeconds(request.wall_seconds()));
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  ASSIGN_OR_RETURN(JobRecord job, OwnedJobLocked(id, caller, "ExtendJob"));
  if (rpc::IsFinalJobState(job.state)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "job_id: job '", request.job_id(), "' is ",
        rpc::JobStateName(job.state),
        "; extend gives a job that has not ended more time (resume runs a "
        "done or cancelled one again)"));
  }
  const int64_t budget = job.budget.wall_seconds();
  if (budget + request.wall_seconds() > kMaxWallSeconds) {
    return absl::InvalidArgumentError(absl::StrCat(
        "wall_seconds: job '", request.job_id(), "' has a budget of ", budget,
        " s; ", request.wall_seconds(), " s more would pass the ",
        kMaxWallSeconds, "-s (24-h) maximum; at most ",
        kMaxWallSeconds - budget, " s more"));
  }
  job.budget.set_wall_seconds(budget + request.wall_seconds());
  RETURN_IF_ERROR(store_->UpdateJob(job));
  NoteChangeLocked(job.id);
  const std::string seconds = absl::StrCat(job.budget.wall_seconds());
  service::LogLine("info", "job_extended",
                   {{"job", FormatJobId(job.id)},
                    {"by", caller.identity},
                    {"wall_seconds", seconds}});
  Audit("job_extended", caller,
        {{"job", FormatJobId(job.id)}, {"wall_seconds", seconds}});
  return StatusLocked(job);
}

absl::StatusOr<v1::ResumeJobResponse> Coordinator::ResumeJob(
    const v1::ResumeJobRequest& request, const Caller& caller) {
  ASSIGN_OR_RETURN(const int64_t id, ParseJobId("job_id", request.job_id()));
  RETURN_IF_ERROR(CheckAddedWallSeconds(request.wall_seconds()));
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  ASSIGN_OR_RETURN(JobRecord job, OwnedJobLocked(id, caller, "ResumeJob"));
  if (job.state != v1::JOB_STATE_DONE &&
      job.state != v1::JOB_STATE_CANCELLED) {
    return absl::FailedPreconditionError(absl::StrCat(
        "job_id: job '", request.job_id(), "' is ",
        rpc::JobStateName(job.state),
        job.state == v1::JOB_STATE_FAILED
            ? "; a failed job is not resumed (submit it again)"
            : "; resume runs a done or cancelled job again (extend gives "
              "this one more time)"));
  }
  RETURN_IF_ERROR(CheckIdentityLimitsLocked(caller, 0, "ResumeJob"));
  // A job cancelled before its seed solve ran is seeded first.
  const bool seeded = store_->GetBestReturn(id).ok();
  if (!seeded) RETURN_IF_ERROR(seeds_->CheckRoom());
  job.state = seeded ? v1::JOB_STATE_QUEUED : v1::JOB_STATE_SEEDING;
  job.budget.set_wall_seconds(request.wall_seconds());
  job.budget.set_learner_steps(0);
  job.started_ms = 0;
  job.finished_ms = 0;
  job.error.clear();
  RETURN_IF_ERROR(store_->UpdateJob(job));
  NoteChangeLocked(job.id);
  if (!seeded) {
    if (const absl::Status queued = seeds_->Add(job.id); !queued.ok()) {
      service::LogLine("warning", "seed_not_queued",
                       {{"job", FormatJobId(job.id)},
                        {"error", std::string(queued.message())}});
    }
  }
  service::LogLine("info", "job_resumed",
                   {{"job", FormatJobId(job.id)},
                    {"by", caller.identity},
                    {"wall_seconds", absl::StrCat(request.wall_seconds())}});
  Audit("job_resumed", caller,
        {{"job", FormatJobId(job.id)},
         {"wall_seconds", absl::StrCat(request.wall_seconds())}});
  v1::ResumeJobResponse response;
  ASSIGN_OR_RETURN(*response.mutable_job(), StatusLocked(job));
  const int64_t step = job.learner_report.learner_step();
  response.set_note(
      step > 0
          ? absl::StrCat(
                "its learner resumes from the job's last checkpoint (its "
                "learner reported step ",
                step,
                ") while the learner's volume still holds it, else from the "
                "best alone; actors start from the best")
          : "it had trained no step: its learner starts afresh, actors from "
            "the best");
  return response;
}

absl::StatusOr<v1::DeleteJobResponse> Coordinator::DeleteJob(
    const v1::DeleteJobRequest& request, const Caller& caller) {
  ASSIGN_OR_RETURN(const int64_t id, ParseJobId("job_id", request.job_id()));
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  ASSIGN_OR_RETURN(const JobRecord job,
                   OwnedJobLocked(id, caller, "DeleteJob"));
  if (!rpc::IsFinalJobState(job.state)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "job_id: ", FormatJobId(id), " is ", v1::JobState_Name(job.state),
        "; only a done, failed or cancelled job can be deleted (cancel it "
        "first)"));
  }
  ASSIGN_OR_RETURN(const v1::DeleteJobResponse response,
                   RemoveEndedJobLocked(id));
  service::LogLine("info", "job_deleted",
                   {{"job", FormatJobId(id)},
                    {"by", caller.identity},
                    {"freed_bytes", absl::StrCat(response.freed_bytes())}});
  Audit("job_deleted", caller,
        {{"job", FormatJobId(id)},
         {"freed_bytes", absl::StrCat(response.freed_bytes())}});
  return response;
}

absl::StatusOr<v1::DeleteJobResponse> Coordinator::RemoveEndedJobLocked(
    int64_t id) {
  ASSIGN_OR_RETURN(const JobStore::DeletedJob deleted,
                   store_->DeleteJob(id, NowMs()));
  workloads_.erase(id);
  serialized_workloads_.erase(id);
  ended_learners_.erase(id);
  NoteChangeLocked(id);  // watchers wake and find it gone
  changes_.erase(id);
  v1::DeleteJobResponse response;
  response.set_job_id(FormatJobId(id));
  response.set_freed_bytes(deleted.workload_bytes + deleted.best_bytes +
                           deleted.network_bytes);
  response.set_freed(absl::StrFormat(
      "workload %d bytes, best solution %d bytes, %d networks %d bytes; "
      "its learner checkpoints and replay table go from the workers' disks "
      "within a minute",
      deleted.workload_bytes, deleted.best_bytes, deleted.networks,
      deleted.network_bytes));
  return response;
}

absl::Status Coordinator::ApplyRetentionLocked() {
  const int64_t retention_ms =
      absl::ToInt64Milliseconds(options_.finished_job_retention);
  const int32_t max_finished = options_.max_finished_jobs;
  if (retention_ms <= 0 && max_finished <= 0) return absl::OkStatus();
  ASSIGN_OR_RETURN(const std::vector<JobStore::EndedJob> ended,
                   store_->ListEndedJobs());
  const int64_t now = NowMs();
  int kept = 0;
  for (const JobStore::EndedJob& job : ended) {  // newest first
    const bool too_old =
        retention_ms > 0 && now - job.finished_ms >= retention_ms;
    const bool too_many = max_finished > 0 && kept >= max_finished;
    if (!too_old && !too_many) {
      ++kept;
      continue;
    }
    ASSIGN_OR_RETURN(const v1::DeleteJobResponse removed,
                     RemoveEndedJobLocked(job.id));
    const std::string why =
        too_old ? absl::StrCat("ended over ", retention_ms / 1000, " s ago")
                : absl::StrCat("beyond the newest ", max_finished,
                               " ended jobs");
    service::LogLine("info", "job_expired",
                     {{"job", removed.job_id()},
                      {"why", why},
                      {"freed_bytes", absl::StrCat(removed.freed_bytes())}});
    Caller retention;
    retention.identity = "retention";
    Audit("job_expired", retention,
          {{"job", removed.job_id()},
           {"why", why},
           {"freed_bytes", absl::StrCat(removed.freed_bytes())}});
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> Coordinator::DatabaseBytes() {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  return store_->FileBytes();
}

absl::StatusOr<JobSnapshot> Coordinator::AwaitJobChange(
    const std::string& job_id, uint64_t seen_change, absl::Time deadline) {
  ASSIGN_OR_RETURN(const int64_t id, ParseJobId("job_id", job_id));
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  RETURN_IF_ERROR(JobLocked(id).status());
  const auto changed = [this, id,
                        seen_change]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return closed_ || changes_[id].change != seen_change;
  };
  mu_.AwaitWithDeadline(absl::Condition(&changed), deadline);
  RETURN_IF_ERROR(CheckOpenLocked());
  ASSIGN_OR_RETURN(const JobRecord job, JobLocked(id));
  JobSnapshot snapshot;
  ASSIGN_OR_RETURN(snapshot.status, StatusLocked(job));
  snapshot.change = changes_[id].change;
  snapshot.best_change = changes_[id].best_change;
  return snapshot;
}

bool Coordinator::AwaitClosed(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  mu_.AwaitWithTimeout(absl::Condition(&closed_), timeout);
  return closed_;
}

absl::Status Coordinator::Tick() {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  // The dashboard forgets workers silent for ten lease TTLs (gone, or
  // registered again under new ids).
  const int64_t forget_before =
      NowMs() - 10 * absl::ToInt64Milliseconds(options_.lease_ttl);
  std::erase_if(worker_views_, [forget_before](const auto& entry) {
    return entry.second.last_heartbeat_unix_ms < forget_before;
  });
  RETURN_IF_ERROR(store_->InTransaction(
      [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
        RETURN_IF_ERROR(DropExpiredLeasesLocked());
        ASSIGN_OR_RETURN(std::vector<JobRecord> jobs, store_->ListJobs());
        const int64_t now = NowMs();
        for (JobRecord& job : jobs) {
          if (job.state != v1::JOB_STATE_RUNNING) continue;
          if (now - job.started_ms < job.budget.wall_seconds() * 1000) continue;
          RETURN_IF_ERROR(FinishLocked(job, v1::JOB_STATE_DONE, ""));
        }
        return absl::OkStatus();
      }));
  return ApplyRetentionLocked();
}

absl::StatusOr<std::vector<v1::JobStatus>> Coordinator::AllJobs() {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  ASSIGN_OR_RETURN(const std::vector<JobRecord> jobs, store_->ListJobs());
  std::vector<v1::JobStatus> statuses;
  statuses.reserve(jobs.size());
  for (const JobRecord& job : jobs) {
    ASSIGN_OR_RETURN(v1::JobStatus status, StatusLocked(job));
    statuses.push_back(std::move(status));
  }
  return statuses;
}

absl::Status Coordinator::SaveHistory(
    const std::vector<HistoryChange>& changes) {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  return store_->InTransaction(
      [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> absl::Status {
        for (const HistoryChange& change : changes) {
          ASSIGN_OR_RETURN(const int64_t id,
                           ParseJobId("job_id", change.job_id));
          if (change.rewritten) {
            RETURN_IF_ERROR(store_->ReplaceJobSamples(id, change.samples));
            continue;
          }
          for (const JobSample& sample : change.samples) {
            RETURN_IF_ERROR(store_->AddJobSample(id, sample));
          }
        }
        return absl::OkStatus();
      });
}

absl::StatusOr<std::map<std::string, std::vector<JobSample>>>
Coordinator::StoredHistory() {
  absl::MutexLock lock(&mu_);
  RETURN_IF_ERROR(CheckOpenLocked());
  ASSIGN_OR_RETURN(auto by_id, store_->ListJobSamples());
  std::map<std::string, std::vector<JobSample>> history;
  for (auto& [id, samples] : by_id) {
    history[FormatJobId(id)] = std::move(samples);
  }
  return history;
}

void Coordinator::Close() {
  {
    absl::MutexLock lock(&mu_);
    closed_ = true;
  }
  // A running seed solve gives its core back now; its job stays SEEDING.
  if (seeds_ != nullptr) seeds_->RequestStop();
}

}  // namespace mmapzero::coordinator
