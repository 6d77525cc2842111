// One job on a reanalyse worker (MuZero Reanalyze, Schrittwieser et al.
// 2020, Appendix H): a thread that loops
//   SampleForReanalyse (whole trajectories from the job's replay)
//   -> re-search every step with the latest parameters (TargetSearch,
//      common/training/target_search.h, the search the in-process Reanalyser
//      uses too)
//   -> UpdateTargets (fresh root values and policies, tagged with the
//      parameter version),
// reporting the running count of reanalysed trajectories to the coordinator
// (JobCounters.reanalysed). Parameters come from the job's learner through a
// ParameterPoller (worker/networks/parameter_poller.h); until the learner has
// published a version there is nothing to refresh targets with, so the job
// waits. Every call has a deadline; while replay is away, or its table
// cannot give trajectories yet, the job backs off.
//
// Thread-safety: thread-safe.
#ifndef MMAPZERO_REANALYSE_REANALYSE_JOB_H_
#define MMAPZERO_REANALYSE_REANALYSE_JOB_H_

#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/base/guarded.h"
#include "common/model/networks.h"
#include "common/training/target_search.h"
#include "proto/worker.pb.h"
#include "reanalyse/reanalyse_job_stats.h"
#include "reanalyse/reanalyse_metrics.h"
#include "worker/job_supervisor.h"
#include "worker/networks/parameter_poller.h"
#include "worker/replay_client.h"
#include "worker/worker_session.h"

namespace mmapzero::reanalyse {

struct ReanalyseJobOptions {
  uint64_t seed = 1;
  int trajectories_per_round = 4;  // SampleForReanalyse.count
  absl::Duration parameter_poll = absl::Seconds(1);
  absl::Duration rpc_deadline = absl::Seconds(10);
  worker::WorkerSession* session = nullptr;  // not owned; required
  ReanalyseMetrics* metrics = nullptr;       // not owned; may be null
};

class ReanalyseJob final : public worker::SupervisedJob {
 public:
  // InvalidArgument naming the field for a config that does not build a
  // network (nothing started then).
  static absl::StatusOr<std::shared_ptr<ReanalyseJob>> Start(
      const v1::Assignment& assignment, const ReanalyseJobOptions& options);
  ~ReanalyseJob() override;  // Stop(0)

  void Update(const v1::Assignment& assignment) override;
  // Ends after the current round (nothing is queued to drain).
  void Stop(absl::Duration drain) override;

  ReanalyseJobStats stats() const;

 private:
  ReanalyseJob(std::string job_id, const ReanalyseJobOptions& options,
               const MuZeroConfig& config, model::MuZeroNetwork network,
               std::unique_ptr<worker::ParameterPoller> poller);
  enum class RoundResult { kWorked, kIdle, kFailed };
  void Run();
  // One sample -> search -> update round.
  RoundResult Round();
  // Logs a failed replay call as `event` and counts it.
  RoundResult Failed(const char* event, const absl::Status& status);
  // The targets of one sampled trajectory; false when it cannot be read
  // or searched (logged).
  bool Refresh(const v1::Trajectory& proto, v1::TargetUpdate* update);
  void Publish();
  // Sleeps `wait` unless stopped; false when stopped.
  bool Wait(absl::Duration wait);

  const std::string job_id_;
  const ReanalyseJobOptions options_;
  model::MuZeroNetwork network_;   // searched with; the thread's own
  training::TargetSearch search_;  // shares network_
  std::unique_ptr<worker::ParameterPoller> poller_;
  int64_t version_ = 0;  // of network_; the thread's own
  uint64_t round_ = 0;   // the thread's own

  worker::ReplayClient replay_;  // thread-safe

  Guarded<ReanalyseJobStats> stats_;  // written by the thread
  Guarded<bool> stopping_{false};     // Stop wakes Wait
  std::jthread thread_;               // last
};

}  // namespace mmapzero::reanalyse

#endif  // MMAPZERO_REANALYSE_REANALYSE_JOB_H_
