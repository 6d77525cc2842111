// The coordinator's core, with no gRPC in it: jobs (submit, list, status,
// cancel, best solution), workers (register, heartbeat with counters and
// lease renewal, solution reports) and the periodic tick that ends jobs
// whose wall budget is spent and drops expired leases. Every state change
// goes to the JobStore (SQLite) before a call returns, so a restarted
// coordinator on the same data directory carries on where it stopped.
//
// Job life: seeding (made by SubmitJob; its seed solve runs on the seed
// queue) -> queued (seeded: the seed is its first best) -> running (when a
// learner takes its lease) -> done (budget spent) / cancelled / failed (the
// seed solve or the learner reported a fatal error).
//
// Thread-safety: every method is thread-safe; one mutex serialises access
// to the store. The seed solves (on the seed queue's threads) and solution
// validation run outside it.
#ifndef MMAPZERO_COORDINATOR_COORDINATOR_H_
#define MMAPZERO_COORDINATOR_COORDINATOR_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/rpc/caller.h"
#include "coordinator/audit_log.h"
#include "coordinator/job_store.h"
#include "coordinator/seed_queue.h"
#include "proto/job.pb.h"
#include "proto/network.pb.h"
#include "proto/worker.pb.h"

namespace mmapzero::coordinator {

using rpc::Caller;
using rpc::CallerOf;

struct CoordinatorOptions {
  std::string data_dir;  // holds coordinator.db
  absl::Duration heartbeat_interval = absl::Seconds(2);
  absl::Duration lease_ttl = absl::Seconds(10);  // > heartbeat_interval
  int32_t max_running_jobs = 0;                  // 0: no limit
  // With more running jobs than actor (or reanalyse) slots, a worker that
  // alone serves a job moves to a job with none after holding its lease
  // this long (lease_planner.h); zero: never.
  absl::Duration lease_rotation = absl::Seconds(60);
  // Solves every workload at submission, so a job has a valid best from
  // its first second (MMap-MuZero-prod). A solver name of
  // common/solvers/solver.h; tests use "drop-all" for a beatable seed.
  std::string seed_solver = "heuristic";
  absl::Duration heuristic_budget = absl::Seconds(10);
  // Seed solves at once (seed_queue.h); at most kSeedsWaitingPerSolve
  // times as many submitted jobs wait for theirs, and a submission beyond
  // them is refused RESOURCE_EXHAUSTED before any job is made.
  int32_t max_seed_solves = 2;
  // Per identity, for an authenticated caller that is not an admin (when
  // nobody is authenticated there are no identities to tell apart): jobs
  // not yet finished at once, and bytes its stored jobs hold in the
  // database (JobStore::UsageOf) with the new workload counted. A submit
  // beyond either is refused RESOURCE_EXHAUSTED before any job is made.
  // 0: no limit.
  int32_t max_active_jobs_per_identity = 0;
  int64_t max_stored_bytes_per_identity = 0;
  // Retention: at each tick, an ended job is deleted (as DeleteJob does)
  // once it ended `finished_job_retention` ago, and beyond the newest
  // `max_finished_jobs` ended ones; logged and audited as job_expired.
  // Zero: kept for ever.
  absl::Duration finished_job_retention = absl::ZeroDuration();
  int32_t max_finished_jobs = 0;
  // Lease expiry, budgets and timestamps read this clock. Test seam: a
  // fake clock makes leases expire without waiting. Default absl::Now.
  std::function<absl::Time()> clock;

  // Every option but the clock (a test seam functions cannot compare).
  bool operator==(const CoordinatorOptions& other) const {
    return data_dir == other.data_dir &&
           heartbeat_interval == other.heartbeat_interval &&
           lease_ttl == other.lease_ttl &&
           max_running_jobs == other.max_running_jobs &&
           lease_rotation == other.lease_rotation &&
           seed_solver == other.seed_solver &&
           heuristic_budget == other.heuristic_budget &&
           max_seed_solves == other.max_seed_solves &&
           max_active_jobs_per_identity ==
               other.max_active_jobs_per_identity &&
           max_stored_bytes_per_identity ==
               other.max_stored_bytes_per_identity &&
           finished_job_retention == other.finished_job_retention &&
           max_finished_jobs == other.max_finished_jobs;
  }
};

// A job's workload serialised, as WorkerService.FetchWorkload streams it.
struct SerializedWorkload {
  std::string bytes;
  uint32_t crc32c = 0;
};

// A network file's bytes as NetworkRegistry.ExportNetwork and
// WorkerService.FetchJobNetwork stream them.
struct NetworkBytes {
  std::string bytes;
  uint32_t crc32c = 0;
};

// A job's status for watchers, with counters that change with it.
struct JobSnapshot {
  v1::JobStatus status;
  uint64_t change = 0;       // grows on every change of the job
  uint64_t best_change = 0;  // grows when its best solution changes
};

// What a worker said in its last heartbeat, for the dashboard: who it is
// and, per job it works on, the parameter version it acts or trains with.
struct WorkerView {
  std::string worker_id;  // "worker-000003"
  std::string name;
  v1::WorkerRole role = v1::WORKER_ROLE_UNSPECIFIED;
  int64_t last_heartbeat_unix_ms = 0;
  std::map<std::string, int64_t> parameter_versions;  // by job id
};

class Coordinator {
 public:
  // Opens the store in options.data_dir. InvalidArgument for bad options.
  static absl::StatusOr<std::unique_ptr<Coordinator>> Open(
      CoordinatorOptions options);

  static constexpr int kSeedsWaitingPerSolve = 16;

  // Stops the seed queue (a running seed solve ends first).
  ~Coordinator();

  // JobService. SubmitJob makes the job at once, SEEDING, and queues its
  // seed solve; the job is QUEUED with the seed as its best once that has
  // run (FAILED when it cannot). A submitted start is checked here and is
  // the first best until a better seed replaces it.
  // A job belongs to the caller that submitted it (common/rpc/caller.h): ListJobs
  // lists only the caller's own, and the others refuse another's job with
  // PermissionDenied (logged with the method, the caller and the job). The
  // default caller (nobody authenticated) owns everything.
  absl::StatusOr<v1::SubmitJobResponse> SubmitJob(
      const v1::SubmitJobRequest& request, const Caller& caller = {})
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<v1::ListJobsResponse> ListJobs(
      const v1::ListJobsRequest& request, const Caller& caller = {})
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<v1::JobStatus> GetJob(const v1::GetJobRequest& request,
                                       const Caller& caller = {})
      ABSL_LOCKS_EXCLUDED(mu_);
  // WatchJob's check before its first progress: OK when `caller` owns the
  // job or there is no such job (the watch reports an unknown or malformed
  // id itself); PermissionDenied, logged with `method`, otherwise.
  absl::Status CheckJobOwner(const std::string& job_id, const Caller& caller,
                             absl::string_view method) ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<v1::JobStatus> CancelJob(const v1::CancelJobRequest& request,
                                          const Caller& caller = {})
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<v1::GetBestSolutionResponse> GetBestSolution(
      const v1::GetBestSolutionRequest& request, const Caller& caller = {})
      ABSL_LOCKS_EXCLUDED(mu_);
  // A done, failed or cancelled job of the caller's, and all the database
  // holds of it; FailedPrecondition while it may still run.
  absl::StatusOr<v1::DeleteJobResponse> DeleteJob(
      const v1::DeleteJobRequest& request, const Caller& caller = {})
      ABSL_LOCKS_EXCLUDED(mu_);
  // More wall time for a job of the caller's that has not ended, its
  // budget at most 24 h from its start; FailedPrecondition once it ended,
  // InvalidArgument past the 24 h.
  absl::StatusOr<v1::JobStatus> ExtendJob(const v1::ExtendJobRequest& request,
                                          const Caller& caller = {})
      ABSL_LOCKS_EXCLUDED(mu_);
  // A done or cancelled job of the caller's queued again (seeded first if
  // it was cancelled before its seed) with a budget of request's wall
  // seconds from when it runs again and no step limit; its best, counters
  // and history kept. Its learner resumes from the job's checkpoint (named
  // by the job's uid) where its volume still holds it. Within the
  // caller's per-identity limits; FailedPrecondition for a job that has
  // not ended or that failed.
  absl::StatusOr<v1::ResumeJobResponse> ResumeJob(
      const v1::ResumeJobRequest& request, const Caller& caller = {})
      ABSL_LOCKS_EXCLUDED(mu_);

  // A job of the caller's with its workload, training configuration and
  // history as the database keeps it (job_history.h), in any state:
  // `mmapctl archive` keeps them.
  absl::StatusOr<v1::JobDetails> GetJobDetails(
      const v1::GetJobDetailsRequest& request, const Caller& caller = {})
      ABSL_LOCKS_EXCLUDED(mu_);

  // WorkerService. Register answers the worker's secret
  // (common/security/worker_secret.h); the other calls that name a worker
  // id check it first (CheckWorkerSecret) where callers are authenticated.
  absl::StatusOr<v1::RegisterResponse> Register(
      const v1::RegisterRequest& request) ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<v1::HeartbeatResponse> Heartbeat(
      const v1::HeartbeatRequest& request) ABSL_LOCKS_EXCLUDED(mu_);
  // From a worker under authentication, the request's lease ticket must
  // be a live (or just ended) lease of that worker on the job
  // (lease_ticket.h); an admin and an unauthenticated caller need none.
  absl::StatusOr<v1::ReportSolutionResponse> ReportSolution(
      const v1::ReportSolutionRequest& request, const Caller& caller = {})
      ABSL_LOCKS_EXCLUDED(mu_);
  // OK for a caller that owns everything (an admin, or nobody
  // authenticated) or whose `secret` proves `worker_id`; InvalidArgument
  // for a malformed id; PermissionDenied, logged as refused with `method`,
  // otherwise.
  absl::Status CheckWorkerSecret(const Caller& caller, absl::string_view method,
                                 const std::string& worker_id,
                                 const std::string& secret) const;
  // FetchWorkload's bytes: NotFound for an unknown worker or job,
  // PermissionDenied unless the worker holds a live lease on the job.
  absl::StatusOr<std::shared_ptr<const SerializedWorkload>> WorkloadForWorker(
      const std::string& worker_id, const std::string& job_id)
      ABSL_LOCKS_EXCLUDED(mu_);

  // NetworkRegistry (coordinator_networks.cc). A network's bytes are
  // checked to be at most kMaxNetworkBytes and a LibTorch archive (a zip);
  // the learner that loads one checks its sizes and feature hash.
  static constexpr int64_t kMaxNetworkBytes = int64_t{256} << 20;
  absl::StatusOr<v1::ListNetworksResponse> ListNetworks()
      ABSL_LOCKS_EXCLUDED(mu_);
  // A registered network, or by its id a job's newest network (with its
  // lineage), so that a job's network can be read and exported too; a
  // job's only by a caller that owns the job (CheckOwner).
  absl::StatusOr<v1::NetworkInfo> GetNetwork(
      const v1::GetNetworkRequest& request, const Caller& caller = {})
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<std::shared_ptr<const NetworkBytes>> ExportNetwork(
      const std::string& name, const Caller& caller = {})
      ABSL_LOCKS_EXCLUDED(mu_);
  // Registers `bytes` (a file) or, with `request.from_job()`, that job's
  // newest network, under request.info().name(), owned by `caller`.
  absl::StatusOr<v1::NetworkInfo> ImportNetwork(
      const v1::ImportNetworkRequest& request, std::string bytes,
      const Caller& caller) ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<v1::DeleteNetworkResponse> DeleteNetwork(
      const v1::DeleteNetworkRequest& request, const Caller& caller)
      ABSL_LOCKS_EXCLUDED(mu_);
  // FetchJobNetwork's bytes: the job's starting network, for the holder
  // of its live learner lease (PermissionDenied otherwise).
  absl::StatusOr<std::shared_ptr<const NetworkBytes>> StartNetworkForWorker(
      const std::string& worker_id, const std::string& job_id)
      ABSL_LOCKS_EXCLUDED(mu_);
  // ReportJobNetwork: kept as the job's network unless older than the one
  // kept. From the job's learner: the live lease holder, or the last one
  // for a short while after the job ended (its final save).
  absl::StatusOr<v1::ReportJobNetworkResponse> ReportJobNetwork(
      const std::string& worker_id, const std::string& job_id,
      int64_t learner_step, std::string bytes) ABSL_LOCKS_EXCLUDED(mu_);

  // WatchJob's wait: the job's snapshot as soon as its change counter
  // differs from `seen_change`, or at `deadline` (real time) as it is.
  // Unavailable once closed.
  absl::StatusOr<JobSnapshot> AwaitJobChange(const std::string& job_id,
                                             uint64_t seen_change,
                                             absl::Time deadline)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Waits `timeout` (real time) or until Close(); true when closed.
  bool AwaitClosed(absl::Duration timeout) ABSL_LOCKS_EXCLUDED(mu_);

  // Ends running jobs whose wall budget is spent, drops expired leases
  // (and the LiveWorkers() entries of workers long silent) and deletes the
  // ended jobs past the retention (CoordinatorOptions).
  absl::Status Tick() ABSL_LOCKS_EXCLUDED(mu_);

  // The bytes the coordinator's database takes on disk (the file and its
  // write-ahead log).
  absl::StatusOr<int64_t> DatabaseBytes() ABSL_LOCKS_EXCLUDED(mu_);

  // Waits until no seed solve is queued or running (tests); false after
  // `timeout`.
  bool AwaitSeeded(absl::Duration timeout) const {
    return seeds_->AwaitIdle(timeout);
  }

  // Every job's status, newest first (metrics).
  absl::StatusOr<std::vector<v1::JobStatus>> AllJobs() ABSL_LOCKS_EXCLUDED(mu_);

  // The dashboard's history in the database (job_history.h): what a
  // Record changed, in one transaction (samples of a job deleted meanwhile
  // are dropped), and every job's stored series by job id.
  absl::Status SaveHistory(const std::vector<HistoryChange>& changes)
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<std::map<std::string, std::vector<JobSample>>> StoredHistory()
      ABSL_LOCKS_EXCLUDED(mu_);

  // The workers heard from within the lease TTL, by worker id, as their
  // last heartbeats said (kept in memory only; empty after a restart until
  // the workers' next heartbeats).
  std::vector<WorkerView> LiveWorkers() const ABSL_LOCKS_EXCLUDED(mu_);

  // Wakes every waiter; from now on calls fail with Unavailable.
  void Close() ABSL_LOCKS_EXCLUDED(mu_);

  const CoordinatorOptions& options() const { return options_; }

 private:
  struct Changes {
    uint64_t change = 0;
    uint64_t best_change = 0;
  };

  Coordinator(CoordinatorOptions options, std::unique_ptr<JobStore> store)
      : options_(std::move(options)), store_(std::move(store)) {}

  // The seed queue's work for one job: the seed solve outside the lock
  // (stopped early when `stop_requested` turns true: the job cancelled or
  // the coordinator closing), then the job QUEUED with the seed as its
  // best when it beats the start (FAILED naming the solver's error). A job
  // cancelled meanwhile stays cancelled; one the store could not update,
  // or whose solve the closing stopped, stays SEEDING and is seeded again
  // by the next coordinator.
  void SeedJob(int64_t job_id, const SeedQueue::StopRequested& stop_requested)
      ABSL_LOCKS_EXCLUDED(mu_);

  int64_t NowMs() const;
  // One audit line (audit_log.h) for a change `caller` made; a failure to
  // write it is logged, the change stands.
  void Audit(const std::string& event, const Caller& caller,
             const AuditLog::Fields& fields);
  absl::Status CheckOpenLocked() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // OK when `caller` owns `job` (common/rpc/caller.h); PermissionDenied otherwise,
  // logged as `refused` with `method`, the caller and the job.
  static absl::Status CheckOwner(const JobRecord& job, const Caller& caller,
                                 absl::string_view method);
  // Deletes ended job `id` and all the coordinator keeps of it, in the
  // database and in memory; what that freed.
  absl::StatusOr<v1::DeleteJobResponse> RemoveEndedJobLocked(int64_t id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The retention of CoordinatorOptions, applied now.
  absl::Status ApplyRetentionLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // OK while `caller` may store one more job of `workload_bytes`
  // (CoordinatorOptions' per-identity limits); ResourceExhausted naming
  // the limit, the caller's figures and what frees room, logged with
  // `method`.
  absl::Status CheckIdentityLimitsLocked(const Caller& caller,
                                         int64_t workload_bytes,
                                         absl::string_view method)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The job's row when `caller` owns it (JobLocked, then CheckOwner).
  absl::StatusOr<JobRecord> OwnedJobLocked(int64_t job_id, const Caller& caller,
                                           absl::string_view method)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The job's row; NotFound "job_id: no job 'job-000042'".
  absl::StatusOr<JobRecord> JobLocked(int64_t job_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<std::shared_ptr<const Workload>> WorkloadLocked(int64_t job_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<std::shared_ptr<const SerializedWorkload>>
  SerializedWorkloadLocked(int64_t job_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The job an earlier submit with `key` made, when there was one;
  // AlreadyExists when that submit's request differed (its fingerprint).
  absl::StatusOr<std::optional<v1::SubmitJobResponse>> EarlierSubmitLocked(
      const SubmitKey& key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<v1::JobStatus> StatusLocked(const JobRecord& job)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The job's starting network when training.initial_network names a
  // registered network or a job (its config's value becomes "sha256:" and
  // the copy's checksum; job->initial_network keeps the name); nullopt for
  // a file, none, default or unset. InvalidArgument naming the field.
  // A job named is `caller`'s (the submitter's) to start from, or refused.
  absl::StatusOr<std::optional<JobNetwork>> ResolveStartNetworkLocked(
      JobRecord* job, const Caller& caller) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // What the job's newest network was trained on: its start's lineage
  // plus the job's own workload and steps. NotFound without a network;
  // PermissionDenied when `caller` does not own the job (`method` logged).
  absl::StatusOr<std::pair<v1::NetworkInfo, std::string>> JobNetworkLocked(
      int64_t job_id, const Caller& caller, absl::string_view method)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A registered network's info (and bytes when asked), or with a job id
  // ("job-000012") the job's newest network as JobNetworkLocked gives it,
  // named by the id. NotFound for an unknown name or a job without one.
  absl::StatusOr<std::pair<v1::NetworkInfo, std::string>> NamedNetworkLocked(
      const std::string& name, bool with_bytes, const Caller& caller,
      absl::string_view method) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether `worker_id` is the job's learner now, or was when the job
  // ended less than kLateNetworkReport ago.
  bool IsJobLearnerLocked(int64_t job_id, int64_t worker_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Open, the job exists and IsJobLearnerLocked; PermissionDenied saying
  // that only the job's learner may do `what`.
  absl::Status CheckJobLearnerLocked(int64_t job_id, int64_t worker_id,
                                     const std::string& worker_text,
                                     absl::string_view what)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Makes `job` final (state, finished time, error) and drops its leases.
  absl::Status FinishLocked(JobRecord& job, v1::JobState state,
                            const std::string& error)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Deletes expired leases; notes the jobs they belonged to.
  absl::Status DropExpiredLeasesLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Counts a change of the job (and of its best) and wakes watchers.
  void NoteChangeLocked(int64_t job_id, bool best = false)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Heartbeat steps (coordinator_workers.cc). `reported`: the jobs the
  // worker reported, each with the return of the newest best it holds
  // (JobCounters.demonstrated_return).
  absl::Status ApplyCountersLocked(
      const WorkerRecord& worker, const v1::JobCounters& counters,
      absl::flat_hash_map<int64_t, double>* reported,
      absl::flat_hash_set<int64_t>* excluded)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<std::vector<int64_t>> RenewLeasesLocked(
      const WorkerRecord& worker, const absl::flat_hash_set<int64_t>& excluded)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // `held`: what the worker reported of the job (nullptr: nothing yet, so
  // the config, workload size and best go with the assignment). A learner
  // is also sent each best it does not hold yet: its demonstrations.
  absl::StatusOr<v1::Assignment> AssignmentLocked(const WorkerRecord& worker,
                                                  int64_t job_id,
                                                  const double* held)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const CoordinatorOptions options_;
  // Signs the lease tickets of assignments (lease_ticket.h); kept in the
  // data directory (lease_key.h), set once in Open before any call.
  std::string lease_key_;  // set by Open, then only read
  // audit.jsonl in the data directory (audit_log.h); set once in Open.
  std::unique_ptr<AuditLog> audit_;
  mutable absl::Mutex mu_;
  std::unique_ptr<JobStore> store_ ABSL_GUARDED_BY(mu_);
  // Parsed workloads by job, loaded on first use.
  absl::flat_hash_map<int64_t, std::shared_ptr<const Workload>> workloads_
      ABSL_GUARDED_BY(mu_);
  // The same serialised, made when a worker first needs it.
  absl::flat_hash_map<int64_t, std::shared_ptr<const SerializedWorkload>>
      serialized_workloads_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<int64_t, Changes> changes_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  std::map<int64_t, WorkerView> worker_views_ ABSL_GUARDED_BY(mu_);
  // How long after its job ended a learner's final network report is taken.
  static constexpr int64_t kLateNetworkReportMs = 120'000;
  // The learner lease holder of each job that ended within
  // kLateNetworkReportMs, and when it ended: its final network report is
  // still taken (memory only; older entries go when another job ends).
  struct EndedLearner {
    int64_t worker_id = 0;
    int64_t ended_ms = 0;
  };
  absl::flat_hash_map<int64_t, EndedLearner> ended_learners_
      ABSL_GUARDED_BY(mu_);
  // Thread-safe. Last: its threads call SeedJob, so it stops first.
  std::unique_ptr<SeedQueue> seeds_;
};

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_COORDINATOR_H_
