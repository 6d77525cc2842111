// A worker's link to the coordinator (docs/protocols.md: a worker needs one
// address and finds everything else through the coordinator). It registers
// with a role, then heartbeats on its own thread at the interval the
// coordinator asks for, sending the per-job counters the worker last set
// and keeping the assignments of the answer. The coordinator sends a job's
// config (and the size and CRC32C of its workload) only until the worker
// reports that job; the session fetches the workload itself through the
// streamed FetchWorkload (chunked_bytes.h), so that a workload as large as
// a submission may be never has to fit in a heartbeat's answer, and caches
// both while the job is assigned: Assignments() always carries them. An
// assignment whose workload cannot be fetched is left out until a later
// heartbeat fetches it.
//
// Every call has a deadline. While the coordinator is away, registration
// and heartbeats are retried with backoff (backoff.h) and the last
// assignments are kept while their leases last, so workers go on with
// their jobs through a short outage. Fencing: a lease lives lease_ttl from
// the coordinator's receipt of a heartbeat, so the session counts it from
// the moment it sent its last answered heartbeat (never later than the
// coordinator's count); once that has passed with no answer, the
// coordinator may have given the jobs to another worker, and the session
// drops every assignment (log line `lease_expired`), so that its worker
// stops them instead of training or reporting beside their new owner. A
// coordinator that answers NOT_FOUND for the worker id (it lost the
// worker, e.g. after a long outage) has dropped its leases too: the
// assignments go, and the session registers afresh. A coordinator that
// refuses the worker's identity (PERMISSION_DENIED: a certificate or token
// of another role; UNAUTHENTICATED: none it accepts) refuses it for good:
// the session logs `refused_for_good` saying what to fix, drops its
// assignments, stops heartbeating and asks the service to exit
// (service::RequestShutdown, exit status service::kExitRefused) instead
// of retrying forever. Thread-safe.
#ifndef MMAPZERO_WORKER_WORKER_SESSION_H_
#define MMAPZERO_WORKER_WORKER_SESSION_H_

#include <grpcpp/channel.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "proto/worker.grpc.pb.h"

namespace mmapzero::worker {

// The coordinator refuses a heartbeat whose job id, loss-term name or
// fatal error is longer than this (coordinator/request_checks.cc); the
// session cuts a fatal error to it, so that a long one cannot cost the
// worker its leases.
inline constexpr size_t kMaxHeartbeatTextBytes = 4096;
// The most HeartbeatRequest.stored_jobs entries the coordinator takes.
inline constexpr int kMaxStoredJobsPerHeartbeat = 256;

// State a worker keeps per job on its own disk (a learner's checkpoint
// folders), which outlives the job there: `list` names the jobs it holds
// state of, `remove` deletes one job's. Every `check_interval` the session
// sends the list with a heartbeat (kMaxStoredJobsPerHeartbeat at a time,
// the next ones the next time) and calls `remove`, on its heartbeat
// thread, for each of those the coordinator answers was deleted. No
// `list`: never; with `list`, `remove` is required.
struct StoredJobState {
  std::function<std::vector<v1::StoredJob>()> list;
  std::function<void(const v1::StoredJob&)> remove;
  absl::Duration check_interval = absl::Minutes(1);
};

// One check's share of `all` (StoredJobState::list's answer): all of it
// when it fits one heartbeat, else the next kMaxStoredJobsPerHeartbeat
// from `*cursor`, wrapping around, with `*cursor` moved past them, so that
// every job is asked about in turn however the list grows or shrinks.
std::vector<v1::StoredJob> StoredJobsRound(std::vector<v1::StoredJob> all,
                                           size_t* cursor);

struct WorkerSessionOptions {
  std::string coordinator;  // host:port
  v1::WorkerRole role = v1::WORKER_ROLE_UNSPECIFIED;
  std::string address;  // where this worker serves ("" if it does not)
  int capacity = 1;     // jobs at once
  std::string name;     // for humans
  absl::Duration rpc_deadline = absl::Seconds(5);
  StoredJobState stored_jobs{};
};

class WorkerSession {
 public:
  // Starts the heartbeat thread; registration happens on it (so a worker
  // may start before the coordinator). InvalidArgument for a bad role or
  // an empty coordinator address.
  static absl::StatusOr<std::unique_ptr<WorkerSession>> Start(
      WorkerSessionOptions options);
  ~WorkerSession();  // Stop()

  // Stops heartbeating (the leases then expire and pass to others).
  void Stop();

  // "" until registered.
  std::string worker_id() const ABSL_LOCKS_EXCLUDED(mu_);
  // The current assignments, workload and config filled in.
  std::vector<v1::Assignment> Assignments() const ABSL_LOCKS_EXCLUDED(mu_);
  // Blocks until the assignments change after `seen` (see version()) or
  // `timeout` passes; returns the version now. A change: a job, role or
  // address, or an assignment that carries a best (a learner's next
  // demonstration).
  int64_t AwaitChange(int64_t seen, absl::Duration timeout) const
      ABSL_LOCKS_EXCLUDED(mu_);
  int64_t version() const ABSL_LOCKS_EXCLUDED(mu_);
  // Whether the leases of the last answered heartbeat can still be live
  // (the same count that drops the assignments, read now): a job's loop
  // asks it before each unit of work, so a worker that was paused past its
  // leases does no more work before the heartbeat thread notices.
  bool LeasesLive() const ABSL_LOCKS_EXCLUDED(mu_);
  // Heartbeats answered since Start (for tests and status).
  int64_t heartbeats() const ABSL_LOCKS_EXCLUDED(mu_);
  // Whether the coordinator refused this worker for good (the file
  // comment); the session has stopped then.
  bool refused() const ABSL_LOCKS_EXCLUDED(mu_);

  // The counters sent for `counters.job_id()` from the next heartbeat on
  // (running totals: a retried heartbeat counts nothing twice).
  void SetCounters(const v1::JobCounters& counters) ABSL_LOCKS_EXCLUDED(mu_);
  // Forgets a job's counters (the worker stopped working on it).
  void ClearCounters(const std::string& job_id) ABSL_LOCKS_EXCLUDED(mu_);

  // The newest lease ticket of this worker on `job_id` (Assignment
  // .lease_ticket), kept for one lease TTL past its expiry after the job
  // leaves the assignments, so that writes still in flight carry it; an
  // empty ticket when there is none.
  v1::LeaseTicket LeaseTicket(const std::string& job_id) const
      ABSL_LOCKS_EXCLUDED(mu_);
  // The coordinator's lease key, given to replay workers at registration
  // (worker.proto); "" before that and for other roles.
  std::string lease_key() const ABSL_LOCKS_EXCLUDED(mu_);

  // Sends a finished game's solution with the job's lease ticket; the
  // coordinator validates it.
  absl::StatusOr<v1::ReportSolutionResponse> ReportSolution(
      const std::string& job_id, const Solution& solution,
      int64_t parameter_version) ABSL_LOCKS_EXCLUDED(mu_);

  // A learner's calls for its job's network (proto/worker.proto): the
  // network the job starts from (the coordinator's copy of a registered
  // network or an earlier job's), and the job's network after each
  // checkpoint and at the end. Errors name the job.
  absl::StatusOr<std::string> FetchJobNetwork(const std::string& job_id)
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<v1::ReportJobNetworkResponse> ReportJobNetwork(
      const std::string& job_id, int64_t learner_step,
      const std::string& bytes) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  explicit WorkerSession(WorkerSessionOptions options);
  void Run(std::stop_token stop);
  bool RegisterOnce() ABSL_LOCKS_EXCLUDED(mu_);
  bool HeartbeatOnce() ABSL_LOCKS_EXCLUDED(mu_);
  // The job's workload through FetchWorkload, checked against the
  // assignment's size and CRC32C.
  absl::StatusOr<Workload> FetchWorkload(const std::string& worker_id,
                                         const std::string& worker_secret,
                                         const v1::Assignment& assignment);
  // The next kMaxStoredJobsPerHeartbeat of options_.stored_jobs.list()
  // when a check is due, else none.
  std::vector<v1::StoredJob> StoredJobsToCheck();
  // Drops the assignments (their leases are gone), logging `why`.
  void DropAssignmentsLocked(const char* why)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // True, having stopped the session (the file comment), when `status`
  // of `call` refuses this worker's identity for good.
  bool RefusedForGoodLocked(const char* call, const grpc::Status& status)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const WorkerSessionOptions options_;
  // Its /healthz check: "worker_session_actor", ..._learner, ...
  const std::string health_check_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::WorkerService::Stub> stub_;

  mutable absl::Mutex mu_;
  std::string worker_id_ ABSL_GUARDED_BY(mu_);
  // RegisterResponse.worker_secret: sent with every call naming worker_id_.
  std::string worker_secret_ ABSL_GUARDED_BY(mu_);
  absl::Duration interval_ ABSL_GUARDED_BY(mu_) = absl::Seconds(2);
  // From Register; zero until then (no fencing without a known TTL).
  absl::Duration lease_ttl_ ABSL_GUARDED_BY(mu_);
  // When the leases of the current assignments end, at the latest.
  absl::Time leases_end_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  std::vector<v1::Assignment> assignments_ ABSL_GUARDED_BY(mu_);
  // job id -> (workload and its CRC32C, config) for the jobs assigned now.
  absl::flat_hash_map<std::string, v1::Assignment> job_cache_
      ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, v1::JobCounters> counters_
      ABSL_GUARDED_BY(mu_);
  // job id -> the newest lease ticket (LeaseTicket()).
  absl::flat_hash_map<std::string, v1::LeaseTicket> tickets_
      ABSL_GUARDED_BY(mu_);
  std::string lease_key_ ABSL_GUARDED_BY(mu_);
  int64_t version_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t heartbeats_ ABSL_GUARDED_BY(mu_) = 0;
  // StoredJobsToCheck's schedule and where its next round starts; the
  // heartbeat thread's alone.
  absl::Time next_stored_check_ = absl::InfinitePast();
  size_t stored_cursor_ = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool refused_ ABSL_GUARDED_BY(mu_) = false;
  mutable absl::CondVar changed_;  // version_ or stopping_ changed
  std::jthread thread_;            // last: stopped and joined first
};

}  // namespace mmapzero::worker

#endif  // MMAPZERO_WORKER_WORKER_SESSION_H_
