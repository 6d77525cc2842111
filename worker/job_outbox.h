// What an actor sends out for one job, on its own thread so that self-play
// never waits on the network: finished games' trajectories to the job's
// replay server (ReplayService.InsertTrajectories, in batches) and its best
// solutions to the coordinator (WorkerSession::ReportSolution).
//
// - Trajectories wait in a bounded queue; when replay is away (no address
//   yet, or calls failing) and the queue is full, the oldest is dropped and
//   counted (`dropped`): fresh games are worth more to the learner.
// - A batch stays under `max_request_bytes` (serialised), so it never
//   meets replay's message limit; a single trajectory over it can never be
//   sent and is dropped at once and counted (`oversized`), never retried.
// - Every call has a deadline; failures are retried with backoff
//   (common/rpc/backoff.h).
// - A solution is offered after every feasible game and reported only when
//   its normalised return beats the best this outbox has offered for the
//   job; a report the coordinator did not receive is retried.
// - Drain(timeout) (SIGTERM, or the job's lease gone) sends what is queued
//   for at most `timeout`, then stops; whatever is left is dropped.
//
// Thread-safety: thread-safe.
#ifndef MMAPZERO_WORKER_JOB_OUTBOX_H_
#define MMAPZERO_WORKER_JOB_OUTBOX_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "proto/replay.pb.h"
#include "proto/solution.pb.h"
#include "proto/worker.pb.h"
#include "worker/replay_client.h"

namespace mmapzero::worker {

// Sends one solution to the coordinator (WorkerSession::ReportSolution).
using SolutionReporter =
    std::function<absl::StatusOr<v1::ReportSolutionResponse>(
        const Solution& solution, int64_t parameter_version)>;

struct JobOutboxOptions {
  std::string job_id;
  std::string worker_id;  // sent with every insert
  int batch_size = 8;     // trajectories per InsertTrajectories
  int max_queued = 256;   // beyond: the oldest is dropped
  // Serialised bytes of one InsertTrajectories request at most: under
  // replay's 64 MiB message limit with room for the envelope.
  int64_t max_request_bytes = int64_t{60} << 20;
  absl::Duration rpc_deadline = absl::Seconds(5);
  SolutionReporter report;  // may be empty: no reports
  // The worker's lease ticket on the job, read for each insert
  // (WorkerSession::LeaseTicket); may be empty: none sent.
  std::function<v1::LeaseTicket()> lease_ticket;
};

struct OutboxStats {
  int64_t queued = 0;         // waiting now
  int64_t sent = 0;           // accepted by replay
  int64_t dropped = 0;        // oldest dropped from a full queue, or left
                              // over when a drain timed out
  int64_t send_failures = 0;  // failed InsertTrajectories calls
  int64_t oversized = 0;      // single trajectories over max_request_bytes
  int64_t reports = 0;        // solutions the coordinator answered
  int64_t accepted = 0;       // ... and took as the job's best
  double best_offered = -1;   // normalised return; -1: none
  // The coordinator's answer to the latest report.
  std::optional<v1::ReportSolutionResponse> last_report;
};

class JobOutbox {
 public:
  explicit JobOutbox(JobOutboxOptions options);
  ~JobOutbox();  // Drain(0)

  // The job's replay server ("": none now; trajectories wait).
  void SetReplayAddress(const std::string& address) ABSL_LOCKS_EXCLUDED(mu_);
  void SetWorkerId(const std::string& worker_id) ABSL_LOCKS_EXCLUDED(mu_);

  // Queues one finished game (dropping the oldest when full). Ignored after
  // Drain.
  void Add(v1::Trajectory trajectory) ABSL_LOCKS_EXCLUDED(mu_);
  // Reports `solution` unless its normalised return is not above the best
  // offered so far.
  void OfferSolution(const Solution& solution, int64_t parameter_version)
      ABSL_LOCKS_EXCLUDED(mu_);

  // Sends what is queued (and a pending report) for at most `timeout`,
  // then stops the thread. Idempotent.
  void Drain(absl::Duration timeout) ABSL_LOCKS_EXCLUDED(mu_);

  OutboxStats stats() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Queued {
    uint64_t seq;
    int64_t bytes;  // serialised
    v1::Trajectory trajectory;
  };
  struct PendingReport {
    Solution solution;
    int64_t parameter_version = 0;
  };

  void Run();
  // One round of work; false when there was nothing to do or it failed.
  bool SendBatch() ABSL_LOCKS_EXCLUDED(mu_);
  bool SendReport() ABSL_LOCKS_EXCLUDED(mu_);
  absl::Duration CallDeadline() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool HasWork() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const JobOutboxOptions options_;
  ReplayClient replay_;  // thread-safe

  mutable absl::Mutex mu_;
  std::string worker_id_ ABSL_GUARDED_BY(mu_);
  std::deque<Queued> queue_ ABSL_GUARDED_BY(mu_);
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_) = 0;
  std::optional<PendingReport> pending_ ABSL_GUARDED_BY(mu_);
  OutboxStats stats_ ABSL_GUARDED_BY(mu_);
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time drain_deadline_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  bool wake_ ABSL_GUARDED_BY(mu_) = false;  // new work or a new address
  std::jthread thread_;  // last: started after the fields it reads
};

}  // namespace mmapzero::worker

#endif  // MMAPZERO_WORKER_JOB_OUTBOX_H_
