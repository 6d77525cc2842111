// The reanalyse service (docs/protocols.md): registers
// with the coordinator as a REANALYSE worker (WorkerSession) and runs a
// ReanalyseJob for each job assigned to it, stopping those whose
// assignment disappears (worker/job_supervisor.h, shared with the actor).
// Used by reanalyse/main.cc and by tests.
//
// Shutdown(): stops every job after its current round, then stops
// heartbeating (the leases expire and pass to other workers).
//
// Thread-safety: thread-safe.
#ifndef MMAPZERO_REANALYSE_REANALYSE_WORKER_H_
#define MMAPZERO_REANALYSE_REANALYSE_WORKER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "reanalyse/reanalyse_job_stats.h"
#include "reanalyse/reanalyse_metrics.h"
#include "worker/job_supervisor.h"
#include "worker/worker_session.h"

namespace mmapzero::reanalyse {

struct ReanalyseWorkerOptions {
  std::string coordinator;  // host:port; required
  std::string name;         // for humans
  int capacity = 1;         // jobs at once
  uint64_t seed = 1;
  int trajectories_per_round = 4;
  absl::Duration rpc_deadline = absl::Seconds(10);
  absl::Duration parameter_poll = absl::Seconds(1);
  ReanalyseMetrics* metrics = nullptr;  // not owned; may be null

  bool operator==(const ReanalyseWorkerOptions&) const = default;
};

// What Start checks before it starts anything, each error naming its
// flag; the service checks its config with it too.
absl::Status CheckReanalyseWorkerOptions(const ReanalyseWorkerOptions& options);

class ReanalyseWorker {
 public:
  // InvalidArgument naming the flag for a bad option.
  static absl::StatusOr<std::unique_ptr<ReanalyseWorker>> Start(
      const ReanalyseWorkerOptions& options);
  ~ReanalyseWorker();  // Shutdown()

  void Shutdown();  // idempotent

  std::string worker_id() const { return session_->worker_id(); }
  std::vector<std::string> JobIds() const { return supervisor_->JobIds(); }
  std::optional<ReanalyseJobStats> JobStats(const std::string& job_id) const;

 private:
  ReanalyseWorker() = default;

  std::unique_ptr<worker::WorkerSession> session_;
  std::unique_ptr<worker::JobSupervisor> supervisor_;  // goes first
};

}  // namespace mmapzero::reanalyse

#endif  // MMAPZERO_REANALYSE_REANALYSE_WORKER_H_
