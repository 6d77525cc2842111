// The replay server's core, without gRPC: one ReplayTable per job, the
// ReplayService calls as proto in / proto out (checked, errors naming the
// field and value; a rejected request changes nothing), and checkpoints.
//
// Tables: created for every job the coordinator assigns to this server,
// with the capacity of its TrainingConfig.replay_size (and the priorities'
// td_steps and discount), or on the first insert for a job not yet
// assigned, with `default_capacity` until the assignment arrives (an actor
// may learn the address a heartbeat before this server learns the job).
//
// Rate limiting (rate_limiter.h): SampleBatch waits up to `max_rate_wait`
// (and never past the call's deadline) for inserts to lift the limit, then
// answers FAILED_PRECONDITION with the reason, as replay.proto specifies;
// the learner retries with backoff. A short wait rather than an immediate
// refusal smooths a learner that is just ahead of the actors without
// tying up server threads for long.
//
// Checkpoints: CheckpointAll writes each table that changed since its last
// checkpoint to <data_dir>/replay/<job>/table.mzr (table_checkpoint.h);
// LoadAll finds them at start, and each is read back when its job is
// assigned or a request names it.
//
// Memory holds the tables of assigned jobs. With a data_dir, the table of
// a job out of the assignments (finished, cancelled, moved) leaves memory
// once its checkpoint holds all of it (CheckpointAll parks it; its file
// stays, and retention and deletion treat it as before), and comes back
// from its checkpoint when the job is assigned again (resume) or a request
// names it. LoadAll reads only the start of each file, so a restart after
// a day of finished jobs is quick and loads the running jobs' tables
// alone, and finished jobs never shrink a running job's share of
// max_total_bytes. A damaged file (its checksum, end mark or records),
// found when the table is loaded, is logged, counted (damaged_checkpoints()),
// set aside as table.mzr.damaged-N (never over an earlier one) and the one
// before it, table.mzr.old, is loaded instead; with both damaged the job starts
// on an empty table. One bad table never keeps the server, or another job,
// down. A table knows the identity of its job (Assignment.job_uid, kept in its
// checkpoint): when an assignment names another identity for the same job id (a
// coordinator that started again on a new database), the old table is set aside
// (its file renamed to table.mzr.other-<uid>) and the job starts on an empty
// one.
//
// Bounds: at most `max_unassigned_tables` tables of jobs this server has
// not been assigned (an insert for one more is refused RESOURCE_EXHAUSTED),
// so any well-formed job id no longer makes a table; tables of jobs out of
// the assignments (finished, moved to another server, never assigned) are
// retired with their checkpoint folder `retention` after they were last
// assigned (RetireUnassigned), or as soon as the coordinator says it
// deleted their job (RetireDeleted); and all tables' memory together stays
// under `max_total_bytes`, each table's limit being its share. Thread-safe.
#ifndef MMAPZERO_REPLAY_REPLAY_TABLES_H_
#define MMAPZERO_REPLAY_REPLAY_TABLES_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/rpc/message_limit.h"
#include "common/service/log_line.h"
#include "proto/replay.pb.h"
#include "proto/worker.pb.h"
#include "replay/replay_table.h"

namespace mmapzero::replay {

struct ReplayTablesOptions {
  std::string data_dir;             // "": no checkpoints
  int64_t default_capacity = 2000;  // trajectories, until the job's config
  ReplayTableOptions table;         // its capacity is ignored
  absl::Duration max_rate_wait = absl::Milliseconds(500);
  // Responses larger than this are refused (SampleBatch) or cut short
  // (SampleForReanalyse) rather than failing in gRPC's transport.
  int64_t max_message_bytes = rpc::kMaxMessageBytes;
  // Tables made by inserts that came before their job's assignment.
  int max_unassigned_tables = 4;
  // How long a table out of the assignments is kept; 0: for ever.
  absl::Duration retention = absl::Hours(24);
  // Memory of all tables together (0: no limit beyond table.max_bytes):
  // each table may hold max_total_bytes / (number of tables), at most
  // table.max_bytes.
  int64_t max_total_bytes = 0;

  bool operator==(const ReplayTablesOptions&) const = default;
};

// A job's figures for metrics.
struct JobReplayStats {
  v1::ReplayStats stats;
  int64_t positions_inserted = 0;  // since this server loaded the table
};

class ReplayTables {
 public:
  explicit ReplayTables(ReplayTablesOptions options);

  // Finds every table under <data_dir>/replay/ and parks it, knowing its
  // job's uid from the start of its file; the table is loaded, and its file
  // checked (see the file comment), when its job is assigned or a request
  // names it. Returns how many were found.
  absl::StatusOr<int> LoadAll() ABSL_LOCKS_EXCLUDED(mu_, checkpoint_mu_);

  absl::StatusOr<v1::InsertTrajectoriesResponse> Insert(
      const v1::InsertTrajectoriesRequest& request) ABSL_LOCKS_EXCLUDED(mu_);
  // `deadline`: the call's.
  absl::StatusOr<v1::SampleBatchResponse> SampleBatch(
      const v1::SampleBatchRequest& request, absl::Time deadline)
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<v1::SampleForReanalyseResponse> SampleForReanalyse(
      const v1::SampleForReanalyseRequest& request) ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<v1::UpdateTargetsResponse> UpdateTargets(
      const v1::UpdateTargetsRequest& request) ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<v1::ReplayStats> GetStats(const v1::GetStatsRequest& request)
      ABSL_LOCKS_EXCLUDED(mu_);

  // Creates or resizes the tables of the REPLAY assignments among
  // `assignments` (other roles are ignored): every job this server holds
  // now, as a heartbeat lists them; a job missing is no longer assigned.
  void Assign(const std::vector<v1::Assignment>& assignments,
              absl::Time now = absl::Now()) ABSL_LOCKS_EXCLUDED(mu_);

  // Drops the tables of jobs not assigned since `now - retention`, and
  // deletes their checkpoint folders; returns how many.
  int RetireUnassigned(absl::Time now = absl::Now())
      ABSL_LOCKS_EXCLUDED(mu_, checkpoint_mu_);

  // The jobs whose tables this server holds and is not assigned now, by
  // job id, each with the uid its table holds ("" unknown): what it asks
  // the coordinator about (WorkerSession's StoredJobState).
  std::vector<v1::StoredJob> UnassignedJobs() const ABSL_LOCKS_EXCLUDED(mu_);
  // Drops the table of a job the coordinator deleted, and its checkpoint
  // folder, when this server holds it for that uid and is not assigned it;
  // whether it did.
  bool RetireDeleted(const v1::StoredJob& job)
      ABSL_LOCKS_EXCLUDED(mu_, checkpoint_mu_);

  // Writes every table changed since its last checkpoint, then parks the
  // tables of unassigned jobs that their checkpoint now holds whole; the
  // first error (the others are still tried). OK without a data_dir.
  absl::Status CheckpointAll() ABSL_LOCKS_EXCLUDED(mu_, checkpoint_mu_);

  // The tables in memory (parked ones are not).
  std::vector<JobReplayStats> AllStats() const ABSL_LOCKS_EXCLUDED(mu_);
  // Jobs whose table is on disk only.
  int parked_tables() const ABSL_LOCKS_EXCLUDED(mu_);

  // <data_dir>/replay/<job_id>/table.mzr
  std::string TablePath(const std::string& job_id) const;

  // What LoadAll used instead of a job's damaged checkpoint (the previous
  // one, or an empty table), for the job's status
  // (JobCounters.checkpoint_fallback); "" when nothing was damaged.
  std::string CheckpointFallback(const std::string& job_id) const
      ABSL_LOCKS_EXCLUDED(mu_);

  // Checkpoint files found damaged (and set aside) when loaded, since this
  // server started.
  int64_t damaged_checkpoints() const { return damaged_checkpoints_.load(); }

 private:
  // The table of `job_id`; NotFound when there is none and `create` is
  // false.
  absl::StatusOr<std::shared_ptr<ReplayTable>> Table(const std::string& job_id,
                                                     bool create)
      ABSL_LOCKS_EXCLUDED(mu_);
  std::shared_ptr<ReplayTable> NewTable(int64_t capacity) const;
  // The table of `job_id` if it is in memory; else nullptr, and `*parked`
  // says whether its checkpoint holds it.
  std::shared_ptr<ReplayTable> InMemory(const std::string& job_id,
                                        bool* parked) const
      ABSL_LOCKS_EXCLUDED(mu_);
  // Brings the parked table of `job_id` back into memory from its newest
  // good checkpoint (an empty table when none is good); nullptr when the
  // job is neither parked nor in memory (never held, or retired meanwhile).
  std::shared_ptr<ReplayTable> Unpark(const std::string& job_id)
      ABSL_LOCKS_EXCLUDED(load_mu_, mu_, checkpoint_mu_);
  // The jobs whose table is in memory or parked.
  std::vector<std::string> HeldJobsLocked() const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // CheckpointAll's writes: every table changed since its last checkpoint.
  absl::Status SaveChanged() ABSL_LOCKS_EXCLUDED(mu_, checkpoint_mu_);
  // Drops from memory the tables of unassigned jobs whose checkpoint holds
  // their last change and that no request is using.
  void ParkUnassigned() ABSL_LOCKS_EXCLUDED(mu_, checkpoint_mu_);
  // The table of `job_id` from its newest good checkpoint (table.mzr, else
  // table.mzr.old), each damaged one set aside and counted; NotFound when
  // there is none.
  absl::StatusOr<std::pair<std::shared_ptr<ReplayTable>, std::string>>
  LoadNewestGood(const std::string& job_id) ABSL_LOCKS_EXCLUDED(mu_);
  // Drops `job_id`'s table and its checkpoint folder; logged as
  // table_retired with `why`.
  void RetireLocked(const std::string& job_id, service::LogFields why)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_, checkpoint_mu_);
  // Gives every table its share of max_total_bytes (after the set of
  // tables changed).
  void Rebalance() ABSL_LOCKS_EXCLUDED(mu_);
  // Renames the checkpoint of `job_id`, whose games are of job `owner`, to
  // table.mzr.other-<owner> and logs it; the caller replaces the table.
  void SetAsideLocked(const std::string& job_id, const std::string& owner)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const ReplayTablesOptions options_;
  std::atomic<int64_t> damaged_checkpoints_{0};
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<ReplayTable>> tables_
      ABSL_GUARDED_BY(mu_);
  // Jobs whose table is only in its checkpoint (never also in tables_).
  absl::flat_hash_set<std::string> parked_ ABSL_GUARDED_BY(mu_);
  // job -> the identity of the job whose games its table holds ("" unknown).
  absl::flat_hash_map<std::string, std::string> uids_ ABSL_GUARDED_BY(mu_);
  // job -> CheckpointFallback().
  absl::flat_hash_map<std::string, std::string> fallbacks_ ABSL_GUARDED_BY(mu_);
  // Jobs of the latest Assign, and when each table's job was last assigned
  // (or its table made or loaded).
  absl::flat_hash_set<std::string> assigned_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, absl::Time> last_assigned_
      ABSL_GUARDED_BY(mu_);
  absl::Mutex load_mu_;        // Unpark's; taken before checkpoint_mu_
  absl::Mutex checkpoint_mu_;  // taken before mu_
  // job -> the table and its ReplayTable::generation() at its last
  // checkpoint or load. Weak, not a plain pointer: a table set aside and
  // replaced never matches, even when the new one is allocated where the
  // old one was.
  absl::flat_hash_map<std::string,
                      std::pair<std::weak_ptr<const ReplayTable>, int64_t>>
      saved_ ABSL_GUARDED_BY(checkpoint_mu_);
};

// OK when `job_id` is 1..128 characters of [A-Za-z0-9._-] and not "." or
// ".." (it names a folder); InvalidArgument naming job_id otherwise.
absl::Status CheckJobId(const std::string& job_id);

}  // namespace mmapzero::replay

#endif  // MMAPZERO_REPLAY_REPLAY_TABLES_H_
