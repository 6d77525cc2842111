// The coordinator's persistent state in SQLite (WAL mode) at
// <data-dir>/coordinator.db: jobs, their workloads (binary protobuf), best
// solutions, workers, leases and per-worker counters. Everything a restarted
// coordinator needs to carry on lives here; nothing is kept only in memory.
// Every mutation runs in a transaction (one per call, or the caller's
// InTransaction around several). Errors name the database file.
//
// The schema carries a version (table schema_version); a database written
// by another schema version is refused rather than guessed at.
//
// Thread-safety: none; the Coordinator serialises calls under its mutex.
#ifndef MMAPZERO_COORDINATOR_JOB_STORE_H_
#define MMAPZERO_COORDINATOR_JOB_STORE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "coordinator/job_history.h"
#include "coordinator/sqlite_db.h"
#include "proto/job.pb.h"
#include "proto/network.pb.h"
#include "proto/muzero.pb.h"
#include "proto/solution.pb.h"
#include "proto/worker.pb.h"
#include "proto/workload.pb.h"

namespace mmapzero::coordinator {

// Times are Unix milliseconds; 0 = not yet.
struct JobRecord {
  int64_t id = 0;  // given by CreateJob
  std::string uid;  // 32 hex digits drawn at submit; "" before schema v2
  std::string name;
  v1::JobState state = v1::JOB_STATE_QUEUED;
  MuZeroConfig config;
  v1::Budget budget;
  std::string workload_name;
  int32_t num_buffers = 0;
  int64_t created_ms = 0;
  int64_t started_ms = 0;
  int64_t finished_ms = 0;
  std::string error;
  double heuristic_normalised_return = 0;
  // The heuristic seed's simulated latency, us (schema v5; 0 before).
  double heuristic_latency_us = 0;
  // The submitted start's figures (SubmitJobRequest.start: a seed stage's
  // best), kept when a better best replaces it; 0 and "" without one
  // (schema v6; 0 and "" before).
  double seed_stage_normalised_return = 0;
  double seed_stage_latency_us = 0;
  std::string seed_stage_solver;
  // What the job was asked to start from (JobStatus.initial_network;
  // schema v7, "" before).
  std::string initial_network;
  // Who submitted it (common/rpc/caller.h: a certificate subject or "token:ROLE"; ""
  // without authentication, and for jobs stored before schema v8, which
  // are an admin's).
  std::string owner;
  // The latest checkpoint fallback a worker reported (JobStatus
  // .checkpoint_fallback; schema v10, "" before).
  std::string checkpoint_fallback;
  // The learner lease holder's latest report (step, version, losses).
  v1::JobCounters learner_report;
  // How many times the learner lease was granted to a new holder: the
  // lease epoch of the current grant (0 before the first; schema v3).
  int64_t learner_epoch = 0;
};

struct BestSolution {
  int64_t job_id = 0;
  Solution solution;      // its figures are the validator's
  std::string worker_id;  // "" for the heuristic seed
  int64_t found_ms = 0;
};

// A submission's idempotency key (SubmitJobRequest.request_id), a
// fingerprint of the rest of its request, and the job it made.
struct SubmitKey {
  std::string key;
  uint32_t fingerprint = 0;
  int64_t job_id = 0;
};

struct WorkerRecord {
  int64_t id = 0;  // given by AddWorker
  v1::WorkerRole role = v1::WORKER_ROLE_UNSPECIFIED;
  std::string address;
  std::string name;
  int32_t capacity = 1;
  int64_t registered_ms = 0;
  int64_t last_heartbeat_ms = 0;
};

// One worker's right to work on one job in one role until expiry_ms.
// Learner and replay leases are exclusive: one holder per job (the schema
// enforces it). acquired_ms is when this worker got the lease (renewals
// keep it; 0 for leases written before schema v4): the lease planner
// rotates actors off the jobs they have held longest.
struct Lease {
  int64_t job_id = 0;
  v1::WorkerRole role = v1::WORKER_ROLE_UNSPECIFIED;
  int64_t worker_id = 0;
  int64_t expiry_ms = 0;
  int64_t acquired_ms = 0;
};

// A network kept for a job (schema v7): the one it starts from (copied
// from the registry or another job at submit) or the newest its learner
// reported. `lineage` is what the network descends from: for a start, the
// source's registry entry (trained_on, steps); for the newest, the same
// as the job's start (the job's own workload is added when registered).
enum class JobNetworkKind { kStart = 0, kLatest = 1 };
struct JobNetwork {
  int64_t job_id = 0;
  JobNetworkKind kind = JobNetworkKind::kLatest;
  std::string sha256;
  int64_t learner_step = 0;
  int64_t saved_ms = 0;
  v1::NetworkInfo lineage;
  std::string bytes;  // empty when read without bytes
};

// Cumulative counters of one worker on one job, or a job's sum over workers.
struct WorkCounters {
  int64_t games = 0;
  int64_t moves = 0;
  int64_t simulations = 0;
  int64_t reanalysed = 0;
  // Actors' use of the best game (v1::JobCounters.best_starts ...).
  int64_t best_starts = 0;
  int64_t followed_moves = 0;
  int64_t rejoined = 0;
  int64_t unchanged = 0;
  // Not a count: the worker's latest report; over workers, the largest.
  int64_t best_start_window = 0;
};

class JobStore {
 public:
  static constexpr char kFileName[] = "coordinator.db";
  // Version 2 added submit_keys and jobs.uid, version 3 jobs.learner_epoch,
  // version 4 leases.acquired_ms, version 5 simulated latencies, version 6
  // the seed stage's figures, version 7 the network registry and jobs'
  // networks, version 8 jobs' owners and each worker's last reported
  // counters, version 9 the dashboard's history, version 10 deleted jobs'
  // marks and checkpoint fallbacks, version 11 the actors' best-start
  // counters; an older file is upgraded on open (its jobs keep an empty uid
  // and epoch 0 and belong to an admin, its leases acquired at 0, no
  // networks, their counters as last reported, best-start counters 0).
  static constexpr int kSchemaVersion = 11;

  // Opens <data_dir>/coordinator.db, creating the folder and the schema
  // when missing.
  static absl::StatusOr<std::unique_ptr<JobStore>> Open(
      const std::string& data_dir);

  const std::string& path() const { return db_->path(); }

  // Runs `body` (calls of this store) as one transaction.
  absl::Status InTransaction(absl::FunctionRef<absl::Status()> body) {
    return db_->InTransaction(body);
  }

  // Stores a job (its id is ignored), its workload, its first best
  // solution when it has one yet (a submitted start; a seeding job has
  // none until its seed solve) and, when given, its submission key (whose
  // job_id is ignored) together; returns the new id.
  absl::StatusOr<int64_t> CreateJob(const JobRecord& job,
                                    const Workload& workload,
                                    const BestSolution* first_best,
                                    const SubmitKey* key = nullptr);
  // The submission stored under `key`, if any.
  absl::StatusOr<std::optional<SubmitKey>> FindSubmitKey(
      const std::string& key);
  // NotFound for an unknown id.
  absl::StatusOr<JobRecord> GetJob(int64_t id);
  absl::StatusOr<std::vector<JobRecord>> ListJobs();  // newest first
  // Writes every field that changes after creation: state, times, error,
  // learner report, the heuristic's figure (set when the job is seeded).
  absl::Status UpdateJob(const JobRecord& job);
  absl::StatusOr<Workload> GetWorkload(int64_t job_id);

  // NotFound while the job has none (seeding, without a start).
  absl::StatusOr<BestSolution> GetBest(int64_t job_id);
  // The best's normalised return alone (no solution parsed): NotFound as
  // GetBest. Asked at every learner heartbeat.
  absl::StatusOr<double> GetBestReturn(int64_t job_id);
  absl::Status PutBest(const BestSolution& best);

  absl::StatusOr<int64_t> AddWorker(const WorkerRecord& worker);
  absl::StatusOr<WorkerRecord> GetWorker(int64_t id);
  absl::Status TouchWorker(int64_t id, int64_t now_ms);
  // The summed capacity of the workers of `role` that registered or
  // heartbeated at or after since_ms: the live slots of that role.
  absl::StatusOr<int64_t> LiveCapacity(v1::WorkerRole role, int64_t since_ms);

  // Removes the job and every row of it (workload, best, leases,
  // counters, submit key, networks, history) in one transaction, leaves a
  // mark of its id and uid deleted at `now_ms` (DeletedAmong), and says
  // how many bytes of blobs went with it.
  struct DeletedJob {
    int64_t workload_bytes = 0;
    int64_t best_bytes = 0;
    int64_t networks = 0;
    int64_t network_bytes = 0;
  };
  absl::StatusOr<DeletedJob> DeleteJob(int64_t job_id, int64_t now_ms);
  // Those of `stored` (jobs whose state a worker keeps on its disk) that
  // were deleted here: the same id and uid. A job of another database
  // (another uid, or an id this one never gave) is not among them, so a
  // coordinator started on a fresh database has workers remove nothing.
  absl::StatusOr<std::vector<v1::StoredJob>> DeletedAmong(
      const std::vector<v1::StoredJob>& stored);

  // What the jobs of one owner hold: how many are not yet finished
  // (seeding, queued or running), and the bytes of their workloads, bests
  // and networks in the database (DeletedJob's, summed). The figures the
  // coordinator's per-identity limits are checked against.
  struct OwnerUsage {
    int64_t active_jobs = 0;
    int64_t stored_bytes = 0;
  };
  absl::StatusOr<OwnerUsage> UsageOf(const std::string& owner);

  // The done, cancelled and failed jobs, newest ended first (retention).
  struct EndedJob {
    int64_t id = 0;
    int64_t finished_ms = 0;
  };
  absl::StatusOr<std::vector<EndedJob>> ListEndedJobs();

  // Bytes the database takes on disk: its file, write-ahead log and
  // shared-memory index.
  int64_t FileBytes() const;

  absl::StatusOr<std::vector<Lease>> ListLeases();

  // The dashboard's history (job_history.h): one more sample of a job, a
  // job's whole series replaced (after it was thinned), and every job's
  // series, oldest first. Samples of a job that is no longer stored are
  // dropped.
  absl::Status AddJobSample(int64_t job_id, const JobSample& sample);
  absl::Status ReplaceJobSamples(int64_t job_id,
                                 const std::vector<JobSample>& samples);
  absl::StatusOr<std::map<int64_t, std::vector<JobSample>>> ListJobSamples();
  // One job's series, oldest first (empty for none).
  absl::StatusOr<std::vector<JobSample>> JobSamplesOf(int64_t job_id);
  // Raises a job's learner_epoch by one and returns it (a new learner
  // lease holder).
  absl::StatusOr<int64_t> NextLearnerEpoch(int64_t job_id);
  // Inserts or renews (same job, role and worker); a renewal keeps the
  // stored acquired_ms.
  absl::Status PutLease(const Lease& lease);
  absl::Status DeleteLease(const Lease& lease);
  absl::Status DeleteJobLeases(int64_t job_id);
  // Deletes the leases with expiry_ms <= now_ms and returns them.
  absl::StatusOr<std::vector<Lease>> DeleteExpiredLeases(int64_t now_ms);

  // The network registry (network_store.cc). PutNetwork: AlreadyExists
  // when the name is taken. Info without bytes; NotFound for an unknown
  // name.
  absl::Status PutNetwork(const v1::NetworkInfo& info,
                          const std::string& bytes);
  absl::StatusOr<std::vector<v1::NetworkInfo>> ListNetworks();  // by name
  absl::StatusOr<v1::NetworkInfo> GetNetworkInfo(const std::string& name);
  absl::StatusOr<std::string> GetNetworkBytes(const std::string& name);
  // Whether there was one to delete.
  absl::StatusOr<bool> DeleteNetwork(const std::string& name);
  // Inserts or replaces the job's network of `network.kind`.
  absl::Status PutJobNetwork(const JobNetwork& network);
  // NotFound while the job has none of that kind; bytes only when asked.
  absl::StatusOr<JobNetwork> GetJobNetwork(int64_t job_id, JobNetworkKind kind,
                                           bool with_bytes);

  // A worker's running counts for a job, as its heartbeat reports them.
  // What they grew since the worker's last report is added to the job's
  // totals; a count smaller than the last one (the worker started the job
  // again, counting from 0) is added whole, so totals never go down.
  absl::Status RecordCounters(int64_t job_id, int64_t worker_id,
                              const WorkCounters& reported);
  // The job's totals over its workers.
  absl::StatusOr<WorkCounters> SumCounters(int64_t job_id);

 private:
  explicit JobStore(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}

  absl::Status Configure();
  absl::Status CreateOrCheckSchema();
  // `columns` of the job's best_solutions row, stepped onto it; NotFound
  // while the job has none.
  absl::StatusOr<Statement> SelectBest(int64_t job_id, const char* columns);
  // Prepares `sql`, lets `bind` bind its parameters and runs it: one
  // statement, so one transaction of its own unless inside InTransaction.
  absl::Status Write(absl::string_view sql,
                     absl::FunctionRef<void(Statement&)> bind);
  // One column of the network `name`'s row; NotFound naming it.
  absl::StatusOr<std::string> SelectNetworkColumn(const std::string& name,
                                                  absl::string_view column);
  // Parses a stored blob; DataLoss naming the column when it does not parse.
  absl::Status ParseBlob(const std::string& bytes, absl::string_view what,
                         google::protobuf::Message* message) const;

  std::unique_ptr<SqliteDb> db_;
};

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_JOB_STORE_H_
