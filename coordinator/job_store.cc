#include "coordinator/job_store.h"

#include <filesystem>
#include <iterator>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "coordinator/ids.h"

namespace mmapzero::coordinator {
namespace {

constexpr char kJobColumns[] =
    "id, name, state, config, budget_wall_seconds, budget_learner_steps, "
    "workload_name, num_buffers, created_ms, started_ms, finished_ms, error, "
    "heuristic_normalised_return, learner_report, uid, learner_epoch, "
    "heuristic_latency_us, seed_stage_normalised_return, "
    "seed_stage_latency_us, seed_stage_solver, initial_network, owner, "
    "checkpoint_fallback";

// The schema of version 1. Enum columns hold the proto enum numbers.
std::string SchemaV1() {
  return absl::StrCat(
      "CREATE TABLE schema_version (version INTEGER NOT NULL);"
      "CREATE TABLE jobs ("
      "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
      "  name TEXT NOT NULL,"
      "  state INTEGER NOT NULL,"
      "  config BLOB NOT NULL,"
      "  budget_wall_seconds INTEGER NOT NULL,"
      "  budget_learner_steps INTEGER NOT NULL,"
      "  workload_name TEXT NOT NULL,"
      "  num_buffers INTEGER NOT NULL,"
      "  created_ms INTEGER NOT NULL,"
      "  started_ms INTEGER NOT NULL,"
      "  finished_ms INTEGER NOT NULL,"
      "  error TEXT NOT NULL,"
      "  heuristic_normalised_return REAL NOT NULL,"
      "  learner_report BLOB NOT NULL);"
      "CREATE TABLE workloads ("
      "  job_id INTEGER PRIMARY KEY REFERENCES jobs(id),"
      "  workload BLOB NOT NULL);"
      "CREATE TABLE best_solutions ("
      "  job_id INTEGER PRIMARY KEY REFERENCES jobs(id),"
      "  normalised_return REAL NOT NULL,"
      "  solver TEXT NOT NULL,"
      "  worker_id TEXT NOT NULL,"
      "  found_ms INTEGER NOT NULL,"
      "  solution BLOB NOT NULL);"
      "CREATE TABLE workers ("
      "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
      "  role INTEGER NOT NULL,"
      "  address TEXT NOT NULL,"
      "  name TEXT NOT NULL,"
      "  capacity INTEGER NOT NULL,"
      "  registered_ms INTEGER NOT NULL,"
      "  last_heartbeat_ms INTEGER NOT NULL);"
      "CREATE TABLE leases ("
      "  job_id INTEGER NOT NULL REFERENCES jobs(id),"
      "  role INTEGER NOT NULL,"
      "  worker_id INTEGER NOT NULL REFERENCES workers(id),"
      "  expiry_ms INTEGER NOT NULL,"
      "  PRIMARY KEY (job_id, role, worker_id));"
      // One learner and one replay server per job.
      "CREATE UNIQUE INDEX leases_one_holder ON leases (job_id, role) "
      "  WHERE role IN (",
      static_cast<int>(v1::WORKER_ROLE_LEARNER), ", ",
      static_cast<int>(v1::WORKER_ROLE_REPLAY),
      ");"
      "CREATE TABLE job_counters ("
      "  job_id INTEGER NOT NULL REFERENCES jobs(id),"
      "  worker_id INTEGER NOT NULL REFERENCES workers(id),"
      "  games INTEGER NOT NULL,"
      "  moves INTEGER NOT NULL,"
      "  simulations INTEGER NOT NULL,"
      "  reanalysed INTEGER NOT NULL,"
      "  PRIMARY KEY (job_id, worker_id));");
}

// What version 2 added to version 1.
constexpr char kSchemaV2Additions[] =
    "CREATE TABLE submit_keys ("
    "  key TEXT PRIMARY KEY,"
    "  fingerprint INTEGER NOT NULL,"
    "  job_id INTEGER NOT NULL REFERENCES jobs(id));"
    "ALTER TABLE jobs ADD COLUMN uid TEXT NOT NULL DEFAULT '';";

// What version 3 added to version 2.
constexpr char kSchemaV3Additions[] =
    "ALTER TABLE jobs ADD COLUMN learner_epoch INTEGER NOT NULL DEFAULT 0;";

// What version 4 added to version 3.
constexpr char kSchemaV4Additions[] =
    "ALTER TABLE leases ADD COLUMN acquired_ms INTEGER NOT NULL DEFAULT 0;";

// What version 5 added to version 4: simulated latencies, the yardstick of
// a job's best (0 for rows stored before: not simulated).
constexpr char kSchemaV5Additions[] =
    "ALTER TABLE jobs ADD COLUMN heuristic_latency_us REAL NOT NULL "
    "DEFAULT 0;"
    "ALTER TABLE best_solutions ADD COLUMN simulated_latency_us REAL NOT NULL "
    "DEFAULT 0;";

// What version 6 added to version 5: the submitted start's (a seed
// stage's best) figures, which the job's best replaces.
constexpr char kSchemaV6Additions[] =
    "ALTER TABLE jobs ADD COLUMN seed_stage_normalised_return REAL NOT NULL "
    "DEFAULT 0;"
    "ALTER TABLE jobs ADD COLUMN seed_stage_latency_us REAL NOT NULL "
    "DEFAULT 0;"
    "ALTER TABLE jobs ADD COLUMN seed_stage_solver TEXT NOT NULL DEFAULT '';";

// What version 7 added to version 6: the network registry, the networks
// of jobs (the one each starts from, when copied from the registry or
// another job, and the newest its learner reported), and what each job was
// asked to start from.
constexpr char kSchemaV7Additions[] =
    "CREATE TABLE networks ("
    "  name TEXT PRIMARY KEY,"
    "  info BLOB NOT NULL,"
    "  bytes BLOB NOT NULL);"
    "CREATE TABLE job_networks ("
    "  job_id INTEGER NOT NULL REFERENCES jobs(id),"
    "  kind INTEGER NOT NULL,"
    "  sha256 TEXT NOT NULL,"
    "  learner_step INTEGER NOT NULL,"
    "  saved_ms INTEGER NOT NULL,"
    "  lineage BLOB NOT NULL,"
    "  bytes BLOB NOT NULL,"
    "  PRIMARY KEY (job_id, kind));"
    "ALTER TABLE jobs ADD COLUMN initial_network TEXT NOT NULL DEFAULT '';";

// What version 8 added to version 7: who owns each job (the identity that
// submitted it; "" for the jobs stored before, which are an admin's), and
// each worker's counters for a job as it last reported them, beside the
// totals it has added (RecordCounters). A row stored before holds its
// totals as its last report.
constexpr char kSchemaV8Additions[] =
    "ALTER TABLE jobs ADD COLUMN owner TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE job_counters ADD COLUMN reported_games INTEGER NOT NULL "
    "DEFAULT 0;"
    "ALTER TABLE job_counters ADD COLUMN reported_moves INTEGER NOT NULL "
    "DEFAULT 0;"
    "ALTER TABLE job_counters ADD COLUMN reported_simulations INTEGER NOT NULL "
    "DEFAULT 0;"
    "ALTER TABLE job_counters ADD COLUMN reported_reanalysed INTEGER NOT NULL "
    "DEFAULT 0;"
    "UPDATE job_counters SET reported_games = games, reported_moves = moves, "
    "reported_simulations = simulations, reported_reanalysed = reanalysed;";

// What version 9 added to version 8: the dashboard's history of each job
// (job_history.h), so that it survives a restart.
constexpr char kSchemaV9Additions[] =
    "CREATE TABLE job_samples ("
    "  job_id INTEGER NOT NULL REFERENCES jobs(id),"
    "  unix_ms INTEGER NOT NULL,"
    "  best_normalised_return REAL NOT NULL,"
    "  best_latency_us REAL NOT NULL,"
    "  learner_step INTEGER NOT NULL,"
    "  games INTEGER NOT NULL,"
    "  moves INTEGER NOT NULL);"
    "CREATE INDEX job_samples_by_job ON job_samples (job_id, unix_ms);";

// What version 10 added to version 9: a mark of each deleted job (by
// delete or retention), its id and uid, so that workers holding state of
// it on their own disks (learner checkpoints, replay tables) learn that it
// may go (DeletedAmong; the mark outlives the job, a row is a few dozen
// bytes); and each job's latest checkpoint fallback a worker reported
// (JobStatus.checkpoint_fallback).
constexpr char kSchemaV10Additions[] =
    "CREATE TABLE deleted_jobs ("
    "  id INTEGER PRIMARY KEY,"
    "  uid TEXT NOT NULL,"
    "  deleted_unix_ms INTEGER NOT NULL);"
    "ALTER TABLE jobs ADD COLUMN checkpoint_fallback TEXT NOT NULL "
    "DEFAULT '';";

// What version 11 added to version 10: how each actor's games used the
// best game (counts with their last reports, as version 8's, and the
// window as last reported); 0 for rows stored before.
constexpr char kSchemaV11Additions[] =
    "ALTER TABLE job_counters ADD COLUMN best_starts INTEGER NOT NULL "
    "DEFAULT 0;"
    "ALTER TABLE job_counters ADD COLUMN followed_moves INTEGER NOT NULL "
    "DEFAULT 0;"
    "ALTER TABLE job_counters ADD COLUMN rejoined INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE job_counters ADD COLUMN unchanged INTEGER NOT NULL "
    "DEFAULT 0;"
    "ALTER TABLE job_counters ADD COLUMN reported_best_starts INTEGER NOT "
    "NULL DEFAULT 0;"
    "ALTER TABLE job_counters ADD COLUMN reported_followed_moves INTEGER NOT "
    "NULL DEFAULT 0;"
    "ALTER TABLE job_counters ADD COLUMN reported_rejoined INTEGER NOT NULL "
    "DEFAULT 0;"
    "ALTER TABLE job_counters ADD COLUMN reported_unchanged INTEGER NOT NULL "
    "DEFAULT 0;"
    "ALTER TABLE job_counters ADD COLUMN best_start_window INTEGER NOT NULL "
    "DEFAULT 0;";

}  // namespace

absl::StatusOr<std::unique_ptr<JobStore>> JobStore::Open(
    const std::string& data_dir) {
  std::error_code error;
  std::filesystem::create_directories(data_dir, error);
  if (error) {
    return absl::FailedPreconditionError(absl::StrCat(
        data_dir, ": cannot create the data directory: ", error.message()));
  }
  ASSIGN_OR_RETURN(
      std::unique_ptr<SqliteDb> db,
      SqliteDb::Open((std::filesystem::path(data_dir) / kFileName).string()));
  std::unique_ptr<JobStore> store(new JobStore(std::move(db)));
  RETURN_IF_ERROR(store->Configure());
  RETURN_IF_ERROR(store->CreateOrCheckSchema());
  return store;
}

absl::Status JobStore::Configure() {
  // WAL: readers never block the writer and a crash loses at most the last
  // transactions, never the file. FULL sync flushes the log at every
  // commit, so a committed job, lease or best survives a power loss too
  // (NORMAL could lose the last commits); commits here are few.
  ASSIGN_OR_RETURN(Statement wal, db_->Prepare("PRAGMA journal_mode=WAL"));
  ASSIGN_OR_RETURN(const bool row, wal.Step());
  if (!row || wal.ColumnText(0) != "wal") {
    return absl::FailedPreconditionError(
        absl::StrCat(path(), ": cannot switch to WAL mode (journal mode '",
                     row ? wal.ColumnText(0) : "", "')"));
  }
  return db_->Exec("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;");
}

absl::Status JobStore::CreateOrCheckSchema() {
  return db_->InTransaction([&]() -> absl::Status {
    ASSIGN_OR_RETURN(
        Statement exists,
        db_->Prepare("SELECT 1 FROM sqlite_master WHERE "
                     "type = 'table' AND name = 'schema_version'"));
    ASSIGN_OR_RETURN(const bool has_schema, exists.Step());
    if (!has_schema) {
      RETURN_IF_ERROR(db_->Exec(SchemaV1()));
      RETURN_IF_ERROR(db_->Exec(kSchemaV2Additions));
      RETURN_IF_ERROR(db_->Exec(kSchemaV3Additions));
      RETURN_IF_ERROR(db_->Exec(kSchemaV4Additions));
      RETURN_IF_ERROR(db_->Exec(kSchemaV5Additions));
      RETURN_IF_ERROR(db_->Exec(kSchemaV6Additions));
      RETURN_IF_ERROR(db_->Exec(kSchemaV7Additions));
      RETURN_IF_ERROR(db_->Exec(kSchemaV8Additions));
      RETURN_IF_ERROR(db_->Exec(kSchemaV9Additions));
      RETURN_IF_ERROR(db_->Exec(kSchemaV10Additions));
      RETURN_IF_ERROR(db_->Exec(kSchemaV11Additions));
      ASSIGN_OR_RETURN(
          Statement insert,
          db_->Prepare("INSERT INTO schema_version (version) VALUES (?)"));
      return insert.Bind(1, kSchemaVersion).Run();
    }
    ASSIGN_OR_RETURN(Statement version,
                     db_->Prepare("SELECT version FROM schema_version"));
    ASSIGN_OR_RETURN(const bool row, version.Step());
    const int64_t found = row ? version.ColumnInt(0) : -1;
    if (found >= 1 && found <= 10) {  // upgrade in place, in this transaction
      if (found <= 1) RETURN_IF_ERROR(db_->Exec(kSchemaV2Additions));
      if (found <= 2) RETURN_IF_ERROR(db_->Exec(kSchemaV3Additions));
      if (found <= 3) RETURN_IF_ERROR(db_->Exec(kSchemaV4Additions));
      if (found <= 4) RETURN_IF_ERROR(db_->Exec(kSchemaV5Additions));
      if (found <= 5) RETURN_IF_ERROR(db_->Exec(kSchemaV6Additions));
      if (found <= 6) RETURN_IF_ERROR(db_->Exec(kSchemaV7Additions));
      if (found <= 7) RETURN_IF_ERROR(db_->Exec(kSchemaV8Additions));
      if (found <= 8) RETURN_IF_ERROR(db_->Exec(kSchemaV9Additions));
      if (found <= 9) RETURN_IF_ERROR(db_->Exec(kSchemaV10Additions));
      RETURN_IF_ERROR(db_->Exec(kSchemaV11Additions));
      return Write("UPDATE schema_version SET version = ?",
                   [](Statement& update) { update.Bind(1, kSchemaVersion); });
    }
    if (found != kSchemaVersion) {
      return absl::FailedPreconditionError(
          absl::StrCat(path(), ": schema version ", found,
                       ", this coordinator reads version ", kSchemaVersion));
    }
    return absl::OkStatus();
  });
}

absl::Status JobStore::Write(absl::string_view sql,
                             absl::FunctionRef<void(Statement&)> bind) {
  ASSIGN_OR_RETURN(Statement statement, db_->Prepare(sql));
  bind(statement);
  return statement.Run();
}

absl::Status JobStore::ParseBlob(const std::string& bytes,
                                 absl::string_view what,
                                 google::protobuf::Message* message) const {
  if (message->ParseFromString(bytes)) return absl::OkStatus();
  return absl::DataLossError(
      absl::StrCat(path(), ": ", what, " does not parse as ",
                   message->GetDescriptor()->full_name()));
}

absl::StatusOr<int64_t> JobStore::CreateJob(const JobRecord& job,
                                            const Workload& workload,
                                            const BestSolution* first_best,
                                            const SubmitKey* key) {
  int64_t id = 0;
  const absl::Status status = db_->InTransaction([&]() -> absl::Status {
    RETURN_IF_ERROR(Write(
        absl::StrCat("INSERT INTO jobs (", kJobColumns,
                     ") VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                     "?, ?, ?, ?, ?, ?, ?)"),
        [&](Statement& insert) {
          insert.Bind(1, job.name)
              .Bind(2, static_cast<int64_t>(job.state))
              .BindBlob(3, job.config.SerializeAsString())
              .Bind(4, job.budget.wall_seconds())
              .Bind(5, job.budget.learner_steps())
              .Bind(6, job.workload_name)
              .Bind(7, job.num_buffers)
              .Bind(8, job.created_ms)
              .Bind(9, job.started_ms)
              .Bind(10, job.finished_ms)
              .Bind(11, job.error)
              .Bind(12, job.heuristic_normalised_return)
              .BindBlob(13, job.learner_report.SerializeAsString())
              .Bind(14, job.uid)
              .Bind(15, job.learner_epoch)
              .Bind(16, job.heuristic_latency_us)
              .Bind(17, job.seed_stage_normalised_return)
              .Bind(18, job.seed_stage_latency_us)
              .Bind(19, job.seed_stage_solver)
              .Bind(20, job.initial_network)
              .Bind(21, job.owner)
              .Bind(22, job.checkpoint_fallback);
        }));
    id = db_->LastInsertRowId();
    RETURN_IF_ERROR(
        Write("INSERT INTO workloads (job_id, workload) VALUES (?, ?)",
              [&](Statement& insert) {
                insert.Bind(1, id).BindBlob(2, workload.SerializeAsString());
              }));
    if (key != nullptr) {
      RETURN_IF_ERROR(Write(
          "INSERT INTO submit_keys (key, fingerprint, job_id) VALUES (?, ?, ?)",
          [&](Statement& insert) {
            insert.Bind(1, key->key)
                .Bind(2, static_cast<int64_t>(key->fingerprint))
                .Bind(3, id);
          }));
    }
    if (first_best == nullptr) return absl::OkStatus();
    BestSolution best = *first_best;
    best.job_id = id;
    return PutBest(best);
  });
  if (!status.ok()) return status;
  return id;
}

absl::StatusOr<std::optional<SubmitKey>> JobStore::FindSubmitKey(
    const std::string& key) {
  ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare("SELECT fingerprint, job_id FROM submit_keys WHERE key = ?"));
  select.Bind(1, key);
  ASSIGN_OR_RETURN(const bool row, select.Step());
  if (!row) return std::optional<SubmitKey>();
  SubmitKey found;
  found.key = key;
  found.fingerprint = static_cast<uint32_t>(select.ColumnInt(0));
  found.job_id = select.ColumnInt(1);
  return std::optional<SubmitKey>(std::move(found));
}

absl::StatusOr<JobRecord> JobStore::GetJob(int64_t id) {
  ASSIGN_OR_RETURN(Statement select,
                   db_->Prepare(absl::StrCat("SELECT ", kJobColumns,
                                             " FROM jobs WHERE id = ?")));
  select.Bind(1, id);
  ASSIGN_OR_RETURN(const bool row, select.Step());
  if (!row) {
    return absl::NotFoundError(absl::StrCat(path(), ": no job ", id));
  }
  JobRecord job;
  job.id = select.ColumnInt(0);
  job.name = select.ColumnText(1);
  job.state = static_cast<v1::JobState>(select.ColumnInt(2));
  RETURN_IF_ERROR(ParseBlob(select.ColumnBlob(3), "jobs.config", &job.config));
  job.budget.set_wall_seconds(select.ColumnInt(4));
  job.budget.set_learner_steps(select.ColumnInt(5));
  job.workload_name = select.ColumnText(6);
  job.num_buffers = static_cast<int32_t>(select.ColumnInt(7));
  job.created_ms = select.ColumnInt(8);
  job.started_ms = select.ColumnInt(9);
  job.finished_ms = select.ColumnInt(10);
  job.error = select.ColumnText(11);
  job.heuristic_normalised_return = select.ColumnDouble(12);
  RETURN_IF_ERROR(ParseBlob(select.ColumnBlob(13), "jobs.learner_report",
                            &job.learner_report));
  job.uid = select.ColumnText(14);
  job.learner_epoch = select.ColumnInt(15);
  job.heuristic_latency_us = select.ColumnDouble(16);
  job.seed_stage_normalised_return = select.ColumnDouble(17);
  job.seed_stage_latency_us = select.ColumnDouble(18);
  job.seed_stage_solver = select.ColumnText(19);
  job.initial_network = select.ColumnText(20);
  job.owner = select.ColumnText(21);
  job.checkpoint_fallback = select.ColumnText(22);
  return job;
}

absl::StatusOr<std::vector<JobRecord>> JobStore::ListJobs() {
  ASSIGN_OR_RETURN(Statement select,
                   db_->Prepare("SELECT id FROM jobs ORDER BY id DESC"));
  std::vector<int64_t> ids;
  while (true) {
    ASSIGN_OR_RETURN(const bool row, select.Step());
    if (!row) break;
    ids.push_back(select.ColumnInt(0));
  }
  std::vector<JobRecord> jobs;
  jobs.reserve(ids.size());
  for (const int64_t id : ids) {
    ASSIGN_OR_RETURN(JobRecord job, GetJob(id));
    jobs.push_back(std::move(job));
  }
  return jobs;
}

absl::Status JobStore::UpdateJob(const JobRecord& job) {
  RETURN_IF_ERROR(Write(
      "UPDATE jobs SET state = ?, started_ms = ?, finished_ms = ?, error = ?, "
      "learner_report = ?, heuristic_normalised_return = ?, "
      "heuristic_latency_us = ?, budget_wall_seconds = ?, "
      "budget_learner_steps = ?, checkpoint_fallback = ? WHERE id = ?",
      [&](Statement& update) {
        update.Bind(1, static_cast<int64_t>(job.state))
            .Bind(2, job.started_ms)
            .Bind(3, job.finished_ms)
            .Bind(4, job.error)
            .BindBlob(5, job.learner_report.SerializeAsString())
            .Bind(6, job.heuristic_normalised_return)
            .Bind(7, job.heuristic_latency_us)
            .Bind(8, job.budget.wall_seconds())
            .Bind(9, job.budget.learner_steps())
            .Bind(10, job.checkpoint_fallback)
            .Bind(11, job.id);
      }));
  if (db_->Changes() == 0) {
    return absl::NotFoundError(absl::StrCat(path(), ": no job ", job.id));
  }
  return absl::OkStatus();
}

absl::StatusOr<Workload> JobStore::GetWorkload(int64_t job_id) {
  ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare("SELECT workload FROM workloads WHERE job_id = ?"));
  select.Bind(1, job_id);
  ASSIGN_OR_RETURN(const bool row, select.Step());
  if (!row) {
    return absl::NotFoundError(
        absl::StrCat(path(), ": no workload for job ", job_id));
  }
  Workload workload;
  RETURN_IF_ERROR(
      ParseBlob(select.ColumnBlob(0), "workloads.workload", &workload));
  return workload;
}

absl::StatusOr<Statement> JobStore::SelectBest(int64_t job_id,
                                               const char* columns) {
  ASSIGN_OR_RETURN(Statement select,
                   db_->Prepare(absl::StrCat("SELECT ", columns,
                                             " FROM best_solutions "
                                             "WHERE job_id = ?")));
  select.Bind(1, job_id);
  ASSIGN_OR_RETURN(const bool row, select.Step());
  if (!row) {
    return absl::NotFoundError(
        absl::StrCat(path(), ": no best solution for job ", job_id));
  }
  return select;
}

absl::StatusOr<BestSolution> JobStore::GetBest(int64_t job_id) {
  ASSIGN_OR_RETURN(Statement select,
                   SelectBest(job_id, "worker_id, found_ms, solution"));
  BestSolution best;
  best.job_id = job_id;
  best.worker_id = select.ColumnText(0);
  best.found_ms = select.ColumnInt(1);
  RETURN_IF_ERROR(ParseBlob(select.ColumnBlob(2), "best_solutions.solution",
                            &best.solution));
  return best;
}

absl::StatusOr<double> JobStore::GetBestReturn(int64_t job_id) {
  ASSIGN_OR_RETURN(Statement select, SelectBest(job_id, "normalised_return"));
  return select.ColumnDouble(0);
}

absl::Status JobStore::PutBest(const BestSolution& best) {
  return Write(
      "INSERT OR REPLACE INTO best_solutions (job_id, normalised_return, "
      "solver, worker_id, found_ms, solution, simulated_latency_us) "
      "VALUES (?, ?, ?, ?, ?, ?, ?)",
      [&](Statement& upsert) {
        upsert.Bind(1, best.job_id)
            .Bind(2, best.solution.normalised_return())
            .Bind(3, best.solution.solver().name())
            .Bind(4, best.worker_id)
            .Bind(5, best.found_ms)
            .BindBlob(6, best.solution.SerializeAsString())
            .Bind(7, best.solution.simulated_latency_us());
      });
}

absl::StatusOr<int64_t> JobStore::AddWorker(const WorkerRecord& worker) {
  RETURN_IF_ERROR(Write(
      "INSERT INTO workers (role, address, name, capacity, registered_ms, "
      "last_heartbeat_ms) VALUES (?, ?, ?, ?, ?, ?)",
      [&](Statement& insert) {
        insert.Bind(1, static_cast<int64_t>(worker.role))
            .Bind(2, worker.address)
            .Bind(3, worker.name)
            .Bind(4, worker.capacity)
            .Bind(5, worker.registered_ms)
            .Bind(6, worker.last_heartbeat_ms);
      }));
  return db_->LastInsertRowId();
}

absl::StatusOr<WorkerRecord> JobStore::GetWorker(int64_t id) {
  ASSIGN_OR_RETURN(Statement select,
                   db_->Prepare("SELECT role, address, name, capacity, "
                                "registered_ms, last_heartbeat_ms FROM workers "
                                "WHERE id = ?"));
  select.Bind(1, id);
  ASSIGN_OR_RETURN(const bool row, select.Step());
  if (!row) {
    return absl::NotFoundError(absl::StrCat(path(), ": no worker ", id));
  }
  WorkerRecord worker;
  worker.id = id;
  worker.role = static_cast<v1::WorkerRole>(select.ColumnInt(0));
  worker.address = select.ColumnText(1);
  worker.name = select.ColumnText(2);
  worker.capacity = static_cast<int32_t>(select.ColumnInt(3));
  worker.registered_ms = select.ColumnInt(4);
  worker.last_heartbeat_ms = select.ColumnInt(5);
  return worker;
}

absl::Status JobStore::TouchWorker(int64_t id, int64_t now_ms) {
  return Write("UPDATE workers SET last_heartbeat_ms = ? WHERE id = ?",
               [&](Statement& update) { update.Bind(1, now_ms).Bind(2, id); });
}

absl::StatusOr<int64_t> JobStore::LiveCapacity(v1::WorkerRole role,
                                               int64_t since_ms) {
  ASSIGN_OR_RETURN(Statement select,
                   db_->Prepare("SELECT COALESCE(SUM(capacity), 0) FROM "
                                "workers WHERE role = ? AND "
                                "last_heartbeat_ms >= ?"));
  select.Bind(1, static_cast<int64_t>(role)).Bind(2, since_ms);
  ASSIGN_OR_RETURN(const bool row, select.Step());
  return row ? select.ColumnInt(0) : 0;
}

absl::StatusOr<std::vector<Lease>> JobStore::ListLeases() {
  ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare("SELECT job_id, role, worker_id, expiry_ms, acquired_ms "
                   "FROM leases ORDER BY job_id, role, worker_id"));
  std::vector<Lease> leases;
  while (true) {
    ASSIGN_OR_RETURN(const bool row, select.Step());
    if (!row) break;
    leases.push_back(Lease{select.ColumnInt(0),
                           static_cast<v1::WorkerRole>(select.ColumnInt(1)),
                           select.ColumnInt(2), select.ColumnInt(3),
                           select.ColumnInt(4)});
  }
  return leases;
}

absl::StatusOr<int64_t> JobStore::NextLearnerEpoch(int64_t job_id) {
  RETURN_IF_ERROR(Write(
      "UPDATE jobs SET learner_epoch = learner_epoch + 1 WHERE id = ?",
      [&](Statement& update) { update.Bind(1, job_id); }));
  ASSIGN_OR_RETURN(const JobRecord job, GetJob(job_id));
  return job.learner_epoch;
}

absl::Status JobStore::PutLease(const Lease& lease) {
  return Write(
      "INSERT INTO leases (job_id, role, worker_id, expiry_ms, acquired_ms) "
      "VALUES (?, ?, ?, ?, ?) ON CONFLICT (job_id, role, worker_id) "
      "DO UPDATE SET expiry_ms = excluded.expiry_ms",
      [&](Statement& upsert) {
        upsert.Bind(1, lease.job_id)
            .Bind(2, static_cast<int64_t>(lease.role))
            .Bind(3, lease.worker_id)
            .Bind(4, lease.expiry_ms)
            .Bind(5, lease.acquired_ms);
      });
}

absl::Status JobStore::DeleteLease(const Lease& lease) {
  return Write(
      "DELETE FROM leases WHERE job_id = ? AND role = ? AND worker_id = ?",
      [&](Statement& erase) {
        erase.Bind(1, lease.job_id)
            .Bind(2, static_cast<int64_t>(lease.role))
            .Bind(3, lease.worker_id);
      });
}

absl::Status JobStore::DeleteJobLeases(int64_t job_id) {
  return Write("DELETE FROM leases WHERE job_id = ?",
               [&](Statement& erase) { erase.Bind(1, job_id); });
}

absl::StatusOr<JobStore::DeletedJob> JobStore::DeleteJob(int64_t job_id,
                                                         int64_t now_ms) {
  DeletedJob deleted;
  // One blob size (and count) of the job's rows in `table`.
  auto measure = [&](absl::string_view table,
                     absl::string_view blob) -> absl::StatusOr<Statement> {
    ASSIGN_OR_RETURN(
        Statement select,
        db_->Prepare(absl::StrCat("SELECT COALESCE(SUM(LENGTH(", blob,
                                  ")), 0), COUNT(*) FROM ", table,
                                  " WHERE job_id = ?")));
    select.Bind(1, job_id);
    ASSIGN_OR_RETURN(const bool row, select.Step());
    if (!row) return absl::InternalError("no row from an aggregate");
    return select;
  };
  const absl::Status status = db_->InTransaction([&]() -> absl::Status {
    {
      ASSIGN_OR_RETURN(Statement workload, measure("workloads", "workload"));
      deleted.workload_bytes = workload.ColumnInt(0);
      ASSIGN_OR_RETURN(Statement best, measure("best_solutions", "solution"));
      deleted.best_bytes = best.ColumnInt(0);
      ASSIGN_OR_RETURN(Statement networks, measure("job_networks", "bytes"));
      deleted.network_bytes = networks.ColumnInt(0);
      deleted.networks = networks.ColumnInt(1);
    }
    for (const absl::string_view table :
         {"leases", "job_counters", "submit_keys", "best_solutions",
          "workloads", "job_networks", "job_samples"}) {
      RETURN_IF_ERROR(
          Write(absl::StrCat("DELETE FROM ", table, " WHERE job_id = ?"),
                [&](Statement& erase) { erase.Bind(1, job_id); }));
    }
    RETURN_IF_ERROR(Write(
        "INSERT INTO deleted_jobs (id, uid, deleted_unix_ms) "
        "SELECT id, uid, ? FROM jobs WHERE id = ?",
        [&](Statement& insert) { insert.Bind(1, now_ms).Bind(2, job_id); }));
    return Write("DELETE FROM jobs WHERE id = ?",
                 [&](Statement& erase) { erase.Bind(1, job_id); });
  });
  if (!status.ok()) return status;
  return deleted;
}

absl::StatusOr<std::vector<v1::StoredJob>> JobStore::DeletedAmong(
    const std::vector<v1::StoredJob>& stored) {
  std::vector<v1::StoredJob> deleted;
  ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare("SELECT 1 FROM deleted_jobs WHERE id = ? AND uid = ?"));
  for (const v1::StoredJob& job : stored) {
    const absl::StatusOr<int64_t> id = ParseJobId("job_id", job.job_id());
    if (!id.ok()) continue;  // not a job of any coordinator
    select.Reset().Bind(1, *id).Bind(2, job.job_uid());
    ASSIGN_OR_RETURN(const bool row, select.Step());
    if (row) deleted.push_back(job);
  }
  return deleted;
}

absl::StatusOr<JobStore::OwnerUsage> JobStore::UsageOf(
    const std::string& owner) {
  // One blob column of the owner's rows in `table`, summed.
  auto blob_sum = [](absl::string_view table, absl::string_view blob) {
    return absl::StrCat("(SELECT COALESCE(SUM(LENGTH(t.", blob, ")), 0) FROM ",
                        table, " t JOIN jobs j ON j.id = t.job_id ",
                        "WHERE j.owner = ?1)");
  };
  ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare(absl::StrCat(
          "SELECT (SELECT COUNT(*) FROM jobs WHERE owner = ?1 AND state IN (",
          static_cast<int>(v1::JOB_STATE_SEEDING), ", ",
          static_cast<int>(v1::JOB_STATE_QUEUED), ", ",
          static_cast<int>(v1::JOB_STATE_RUNNING), ")), ",
          blob_sum("workloads", "workload"), " + ",
          blob_sum("best_solutions", "solution"), " + ",
          blob_sum("job_networks", "bytes"))));
  select.Bind(1, owner);
  ASSIGN_OR_RETURN(const bool row, select.Step());
  if (!row) return absl::InternalError("no row from an aggregate");
  OwnerUsage usage;
  usage.active_jobs = select.ColumnInt(0);
  usage.stored_bytes = select.ColumnInt(1);
  return usage;
}

absl::StatusOr<std::vector<JobStore::EndedJob>> JobStore::ListEndedJobs() {
  ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare(absl::StrCat(
          "SELECT id, finished_ms FROM jobs WHERE state IN (",
          static_cast<int>(v1::JOB_STATE_DONE), ", ",
          static_cast<int>(v1::JOB_STATE_CANCELLED), ", ",
          static_cast<int>(v1::JOB_STATE_FAILED),
          ") ORDER BY finished_ms DESC, id DESC")));
  std::vector<EndedJob> ended;
  while (true) {
    ASSIGN_OR_RETURN(const bool row, select.Step());
    if (!row) break;
    ended.push_back({select.ColumnInt(0), select.ColumnInt(1)});
  }
  return ended;
}

int64_t JobStore::FileBytes() const {
  int64_t bytes = 0;
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::error_code error;
    const std::uintmax_t size =
        std::filesystem::file_size(path() + suffix, error);
    if (!error) bytes += static_cast<int64_t>(size);
  }
  return bytes;
}

absl::Status JobStore::AddJobSample(int64_t job_id, const JobSample& sample) {
  // Nothing for a job deleted meanwhile (the dashboard samples what it
  // listed a moment before).
  return Write(
      "INSERT INTO job_samples (job_id, unix_ms, best_normalised_return, "
      "best_latency_us, learner_step, games, moves) "
      "SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7 "
      "WHERE EXISTS (SELECT 1 FROM jobs WHERE id = ?1)",
      [&](Statement& insert) {
        insert.Bind(1, job_id)
            .Bind(2, sample.unix_ms)
            .Bind(3, sample.best_normalised_return)
            .Bind(4, sample.best_latency_us)
            .Bind(5, sample.learner_step)
            .Bind(6, sample.games)
            .Bind(7, sample.moves);
      });
}

absl::Status JobStore::ReplaceJobSamples(
    int64_t job_id, const std::vector<JobSample>& samples) {
  return db_->InTransaction([&]() -> absl::Status {
    RETURN_IF_ERROR(
        Write("DELETE FROM job_samples WHERE job_id = ?",
              [&](Statement& erase) { erase.Bind(1, job_id); }));
    for (const JobSample& sample : samples) {
      RETURN_IF_ERROR(AddJobSample(job_id, sample));
    }
    return absl::OkStatus();
  });
}

namespace {

constexpr char kSelectSamples[] =
    "SELECT job_id, unix_ms, best_normalised_return, best_latency_us, "
    "learner_step, games, moves FROM job_samples";

// The rows of a kSelectSamples query, by job id, each series in the
// query's order.
absl::StatusOr<std::map<int64_t, std::vector<JobSample>>> ReadSamples(
    Statement& select) {
  std::map<int64_t, std::vector<JobSample>> samples;
  while (true) {
    ASSIGN_OR_RETURN(const bool row, select.Step());
    if (!row) break;
    samples[select.ColumnInt(0)].push_back(
        {.unix_ms = select.ColumnInt(1),
         .best_normalised_return = select.ColumnDouble(2),
         .best_latency_us = select.ColumnDouble(3),
         .learner_step = select.ColumnInt(4),
         .games = select.ColumnInt(5),
         .moves = select.ColumnInt(6)});
  }
  return samples;
}

}  // namespace

absl::StatusOr<std::map<int64_t, std::vector<JobSample>>>
JobStore::ListJobSamples() {
  ASSIGN_OR_RETURN(Statement select,
                   db_->Prepare(absl::StrCat(
                       kSelectSamples, " ORDER BY job_id, unix_ms, rowid")));
  return ReadSamples(select);
}

absl::StatusOr<std::vector<JobSample>> JobStore::JobSamplesOf(int64_t job_id) {
  ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare(absl::StrCat(kSelectSamples,
                                " WHERE job_id = ? ORDER BY unix_ms, rowid")));
  select.Bind(1, job_id);
  ASSIGN_OR_RETURN(auto samples, ReadSamples(select));
  return std::move(samples[job_id]);
}

absl::StatusOr<std::vector<Lease>> JobStore::DeleteExpiredLeases(
    int64_t now_ms) {
  std::vector<Lease> expired;
  const absl::Status status = db_->InTransaction([&]() -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<Lease> leases, ListLeases());
    for (const Lease& lease : leases) {
      if (lease.expiry_ms > now_ms) continue;
      RETURN_IF_ERROR(DeleteLease(lease));
      expired.push_back(lease);
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return expired;
}

namespace {

// The cumulative counts of a job_counters row, each stored beside its
// worker's last report (reported_NAME): RecordCounters adds what grew, and
// SumCounters totals them over workers. A new count is one more entry
// here (and its two columns in a schema version).
struct Count {
  const char* column;
  int64_t WorkCounters::*field;
};
constexpr Count kCounts[] = {
    {"games", &WorkCounters::games},
    {"moves", &WorkCounters::moves},
    {"simulations", &WorkCounters::simulations},
    {"reanalysed", &WorkCounters::reanalysed},
    {"best_starts", &WorkCounters::best_starts},
    {"followed_moves", &WorkCounters::followed_moves},
    {"rejoined", &WorkCounters::rejoined},
    {"unchanged", &WorkCounters::unchanged},
};
constexpr int kNumCounts = static_cast<int>(std::size(kCounts));

}  // namespace

absl::Status JobStore::RecordCounters(int64_t job_id, int64_t worker_id,
                                      const WorkCounters& reported) {
  // Parameters: ?1 job, ?2 worker, ?3 .. the counts in kCounts' order,
  // then the window (each worker's latest report, not a count). Per
  // count: the growth since the last report, or the whole report when it
  // is smaller than the last (counting started again). Built once: every
  // heartbeat writes it for every job of its worker.
  static const std::string* const kUpsert = [] {
    std::string columns, reported_columns, values, grown;
    for (int i = 0; i < kNumCounts; ++i) {
      const std::string count = kCounts[i].column;
      const std::string parameter = absl::StrCat("?", i + 3);
      absl::StrAppend(&columns, ", ", count);
      absl::StrAppend(&reported_columns, ", reported_", count);
      absl::StrAppend(&values, ", ", parameter);
      absl::StrAppend(&grown, count, " = ", count,
                      " + CASE WHEN excluded.reported_", count,
                      " >= reported_", count, " THEN excluded.reported_", count,
                      " - reported_", count, " ELSE excluded.reported_", count,
                      " END, reported_", count, " = excluded.reported_", count,
                      ", ");
    }
    return new std::string(absl::StrCat(
        "INSERT INTO job_counters (job_id, worker_id", columns,
        reported_columns, ", best_start_window) VALUES (?1, ?2", values,
        values, ", ?", kNumCounts + 3,
        ") ON CONFLICT (job_id, worker_id) DO UPDATE SET ", grown,
        "best_start_window = excluded.best_start_window"));
  }();
  return Write(*kUpsert, [&](Statement& upsert) {
    upsert.Bind(1, job_id).Bind(2, worker_id);
    for (int i = 0; i < kNumCounts; ++i) {
      upsert.Bind(i + 3, reported.*kCounts[i].field);
    }
    upsert.Bind(kNumCounts + 3, reported.best_start_window);
  });
}

absl::StatusOr<WorkCounters> JobStore::SumCounters(int64_t job_id) {
  static const std::string* const kSelect = [] {
    std::string totals;
    for (const Count& count : kCounts) {
      absl::StrAppend(&totals, "TOTAL(", count.column, "), ");
    }
    return new std::string(absl::StrCat(
        "SELECT ", totals,
        "MAX(best_start_window) FROM job_counters WHERE job_id = ?"));
  }();
  ASSIGN_OR_RETURN(Statement select, db_->Prepare(*kSelect));
  select.Bind(1, job_id);
  ASSIGN_OR_RETURN(const bool row, select.Step());
  WorkCounters sum;
  if (row) {
    for (int i = 0; i < kNumCounts; ++i) {
      sum.*kCounts[i].field = select.ColumnInt(i);
    }
    sum.best_start_window = select.ColumnInt(kNumCounts);  // 0 for NULL
  }
  return sum;
}

}  // namespace mmapzero::coordinator
