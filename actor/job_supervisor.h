// A worker's jobs following its assignments (WorkerSession): a thread
// waits for the assignments to change and starts a job for each new
// assignment of the worker's role (through a factory: self-play for an
// actor, reanalyse for a reanalyse worker) and stops each job whose
// assignment disappeared (lease lost or job final; docs/protocols.md
// "Leases"), letting it drain for `stop_drain`. Peer addresses that change
// (a learner or replay takeover) are passed on. A job that cannot start
// (bad workload or config) is reported to the coordinator as the job's
// fatal_error, which gives its lease up, and is not tried again while it
// stays assigned. Shared by actor/ and reanalyse/.
//
// Thread-safety: thread-safe.
#ifndef MMAPZERO_ACTOR_JOB_SUPERVISOR_H_
#define MMAPZERO_ACTOR_JOB_SUPERVISOR_H_

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
#include "common/rpc/worker_session.h"
#include "proto/worker.pb.h"

namespace mmapzero::actor {

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
  std::string fatal_error() const ABSL_LOCKS_EXCLUDED(crash_mu_);

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
  JobSupervisor(rpc::WorkerSession* session, v1::WorkerRole role,
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
  void Run(std::stop_token stop);
  void Reconcile(const std::vector<v1::Assignment>& assignments)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Keeps `job_id` from restarting while assigned and reports `error` as
  // its fatal error with the next heartbeats.
  void RecordFailureLocked(const std::string& job_id, const std::string& error)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  rpc::WorkerSession* session_;
  const v1::WorkerRole role_;
  const JobFactory factory_;
  const absl::Duration stop_drain_;

  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<SupervisedJob>> jobs_
      ABSL_GUARDED_BY(mu_);
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

}  // namespace mmapzero::actor

#endif  // MMAPZERO_ACTOR_JOB_SUPERVISOR_H_
