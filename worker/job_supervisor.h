// A worker's jobs following its assignments (WorkerSession): a thread
// waits for the assignments to change and starts a job for each new
// assignment of the worker's role (through a factory: self-play for an
// actor, reanalyse for a reanalyse worker) and stops each job whose
// assignment disappeared (lease lost or job final; docs/protocols.md
// "Leases"), letting it drain for `stop_drain`. Peer addresses that change
// (a learner or replay takeover) are passed on. A job that cannot start
// (bad workload or config) is reported to the coordinator as the job's
// fatal_error, which gives its lease up, and is not tried again while it
// stays assigned. Two outcomes are not failures:
//  - a factory that answers Unavailable (e.g. the job's checkpoint fence
//    is busy) is asked again at the next round;
//  - a job fenced out by a newer lease epoch (the factory answers Aborted,
//    or the running job's fenced() turns non-empty) is stopped and not
//    started again under that epoch, and reports nothing: the job goes on
//    with the worker that holds it now (common/base/lease_fence.h).
// A running job whose assignment comes back with another lease_epoch (the
// lease lapsed and was granted again) is stopped and its counters cleared,
// so the next heartbeat omits it and the coordinator sends the workload
// and config again; it then starts afresh. Shared by actor/, learner/ and
// reanalyse/.
//
// Thread-safety: thread-safe.
#ifndef MMAPZERO_WORKER_JOB_SUPERVISOR_H_
#define MMAPZERO_WORKER_JOB_SUPERVISOR_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "proto/worker.pb.h"
#include "worker/worker_session.h"

namespace mmapzero::worker {

// One job a worker works on.
class SupervisedJob {
 public:
  virtual ~SupervisedJob() = default;
  // The assignment again (peer addresses may have changed).
  virtual void Update(const v1::Assignment& assignment) = 0;
  // Stops working, sending what is pending for at most `drain`.
  virtual void Stop(absl::Duration drain) = 0;
  // What ended the job's thread when an exception escaped it
  // (rpc/crash_guard.h), else "". The supervisor then reports it as the
  // job's fatal error and stops the job.
  virtual std::string fatal_error() const ABSL_LOCKS_EXCLUDED(crash_mu_);
  // Non-empty when a newer lease epoch has claimed the job's state: the
  // supervisor stops it without reporting a failure.
  virtual std::string fenced() const { return ""; }

 protected:
  // Runs `body` as the job's thread, keeping what escapes it.
  void RunGuarded(const std::string& job_id, const std::function<void()>& body)
      ABSL_LOCKS_EXCLUDED(crash_mu_);

 private:
  mutable absl::Mutex crash_mu_;
  std::string crash_ ABSL_GUARDED_BY(crash_mu_);
};

// Starts a job for an assignment that carries its workload and config.
using JobFactory = std::function<absl::StatusOr<std::shared_ptr<SupervisedJob>>(
    const v1::Assignment& assignment)>;

class JobSupervisor {
 public:
  // `session` is not owned and must outlive this object.
  JobSupervisor(worker::WorkerSession* session, v1::WorkerRole role,
                JobFactory factory,
                absl::Duration stop_drain = absl::Seconds(2));
  ~JobSupervisor();  // Stop(0)

  // Stops following the assignments, then stops every job, each draining
  // for at most `drain`. Idempotent.
  void Stop(absl::Duration drain) ABSL_LOCKS_EXCLUDED(mu_);

  // The job now running for `job_id`, or null.
  std::shared_ptr<SupervisedJob> Find(const std::string& job_id) const
      ABSL_LOCKS_EXCLUDED(mu_);
  std::vector<std::string> JobIds() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // Why a running job is stopped (the log line's `why`).
  enum class StopReason { kUnassigned, kCrashed, kFenced, kLeaseRenewed };
  // A job being started or running, with the lease epoch it started under.
  struct RunningJob {
    std::shared_ptr<SupervisedJob> job;
    int64_t epoch = 0;
  };
  // A job taken off the running ones, to be stopped outside the lock.
  struct StoppingJob {
    std::string id;
    std::shared_ptr<SupervisedJob> job;
    StopReason why = StopReason::kUnassigned;
  };
  // This worker's role's assignments: job id -> lease epoch.
  using Assigned = absl::flat_hash_map<std::string, int64_t>;
  static std::string Name(StopReason why);

  void Run(std::stop_token stop);
  // Starts, updates and stops jobs to follow `assignments`.
  void Reconcile(const std::vector<v1::Assignment>& assignments)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Updates running jobs whose assignment is unchanged; the assignments of
  // jobs to start.
  std::vector<v1::Assignment> UpdateLocked(
      const std::vector<v1::Assignment>& assignments, Assigned* assigned)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Takes off the running jobs that are unassigned, crashed, fenced or
  // whose lease was granted again.
  std::vector<StoppingJob> TakeStoppingLocked(const Assigned& assigned)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Forgets fences of other epochs and failures a while unassigned.
  void ForgetLocked(const Assigned& assigned)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void StopJobs(std::vector<StoppingJob> stopping) ABSL_LOCKS_EXCLUDED(mu_);
  void StartJob(const v1::Assignment& assignment) ABSL_LOCKS_EXCLUDED(mu_);
  // Keeps `job_id` from restarting while assigned and reports `error` as
  // its fatal error with the next heartbeats.
  void RecordFailureLocked(const std::string& job_id, const std::string& error)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  worker::WorkerSession* session_;
  const v1::WorkerRole role_;
  const JobFactory factory_;
  const absl::Duration stop_drain_;

  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, RunningJob> jobs_ ABSL_GUARDED_BY(mu_);
  // Jobs fenced out, with the epoch: not started again under it.
  absl::flat_hash_map<std::string, int64_t> fenced_ ABSL_GUARDED_BY(mu_);
  // Jobs that failed to start or crashed here: not started again, their
  // error reported, until a minute after they are no longer assigned.
  struct Failure {
    std::string error;
    std::optional<absl::Time> unassigned_since;
  };
  absl::flat_hash_map<std::string, Failure> failed_ ABSL_GUARDED_BY(mu_);
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  std::jthread thread_;  // last
};

}  // namespace mmapzero::worker

#endif  // MMAPZERO_WORKER_JOB_SUPERVISOR_H_
