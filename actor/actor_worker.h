// The actor service (docs/protocols.md): registers with the
// coordinator as an ACTOR (WorkerSession), and for each job assigned to it
// (up to `capacity` at once) runs an ActorJob: self-play with batched
// inference, parameters from the job's learner, trajectories to the job's
// replay, best solutions to the coordinator. A job whose assignment
// disappears is stopped (JobSupervisor). Used by actor/main.cc and by
// tests, which point it at a coordinator on a loopback port.
//
// Shutdown(drain) (SIGTERM): stops taking jobs, stops every job's play and
// gives their queued trajectories at most `drain` to reach replay, then
// stops heartbeating (the leases expire and pass to other actors).
//
// Thread-safety: thread-safe.
#ifndef MMAPZERO_ACTOR_ACTOR_WORKER_H_
#define MMAPZERO_ACTOR_ACTOR_WORKER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "actor/actor_job_stats.h"
#include "actor/actor_metrics.h"
#include "worker/job_supervisor.h"
#include "worker/worker_session.h"

namespace mmapzero::actor {

struct ActorWorkerOptions {
  std::string coordinator;  // host:port; required
  std::string name;         // for humans
  int capacity = 1;         // jobs at once
  uint64_t seed = 1;
  absl::Duration rpc_deadline = absl::Seconds(5);
  absl::Duration parameter_poll = absl::Seconds(1);
  int trajectory_batch = 8;           // per InsertTrajectories
  int max_queued_trajectories = 256;  // per job; the oldest are dropped
  ActorMetrics* metrics = nullptr;    // not owned; may be null

  bool operator==(const ActorWorkerOptions&) const = default;
};

// What Start checks before it starts anything, each error naming its
// flag; the service checks its config with it too.
absl::Status CheckActorWorkerOptions(const ActorWorkerOptions& options);

class ActorWorker {
 public:
  // InvalidArgument naming the flag for a bad option.
  static absl::StatusOr<std::unique_ptr<ActorWorker>> Start(
      const ActorWorkerOptions& options);
  ~ActorWorker();  // Shutdown(0)

  // Idempotent; see the file comment.
  void Shutdown(absl::Duration drain);

  std::string worker_id() const { return session_->worker_id(); }
  std::vector<std::string> JobIds() const { return supervisor_->JobIds(); }
  // The running job's figures; none when `job_id` is not running here.
  std::optional<ActorJobStats> JobStats(const std::string& job_id) const;

 private:
  ActorWorker() = default;

  std::unique_ptr<worker::WorkerSession> session_;
  std::unique_ptr<worker::JobSupervisor>
      supervisor_;  // after session_: goes first
};

}  // namespace mmapzero::actor

#endif  // MMAPZERO_ACTOR_ACTOR_WORKER_H_
