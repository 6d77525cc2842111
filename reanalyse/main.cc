// mmapzero-reanalyse: the reanalyse worker service (reanalyse_worker.h).
//   mmapzero-reanalyse --coordinator HOST:PORT [--capacity N] [--name NAME]
//       [--metrics-port 9092] [--trajectories-per-round 4] [--seed S]
// It serves no gRPC itself: it finds its jobs, their replay servers and
// learners through the coordinator (the flags all such workers share:
// common/rpc/worker_flags.h). SIGTERM or SIGINT: every job ends after its
// current round, heartbeats stop.
#include <torch/torch.h>

#include <memory>
#include <string>
#include <utility>

#include "absl/flags/flag.h"
#include "common/base/status_macros.h"
#include "common/model/compute_threads.h"
#include "common/rpc/log_line.h"
#include "common/rpc/service_main.h"
#include "common/rpc/worker_flags.h"
#include "reanalyse/reanalyse_metrics.h"
#include "reanalyse/reanalyse_worker.h"

constexpr int kDefaultMetricsPort = 9092;
constexpr char kUsage[] =
    "the mmapzero reanalyse worker.\n"
    "  mmapzero-reanalyse --coordinator HOST:PORT [--capacity N] "
    "[--metrics-port N] [--name NAME]";

ABSL_FLAG(uint64_t, seed, 1, "search seed");
ABSL_FLAG(int, trajectories_per_round, 4,
          "trajectories per SampleForReanalyse");

namespace mmapzero::reanalyse {
namespace {

absl::Status CheckFlags() {
  return rpc::WorkerFlagsFromCommandLine("reanalyse", kDefaultMetricsPort).status();
}

absl::StatusOr<rpc::StopService> Start() {
  ASSIGN_OR_RETURN(
      const rpc::WorkerFlags flags,
      rpc::WorkerFlagsFromCommandLine("reanalyse", kDefaultMetricsPort));
  model::SetComputeThreads(flags.threads);
  ASSIGN_OR_RETURN(std::unique_ptr<ReanalyseMetrics> metrics,
                   ReanalyseMetrics::Start(flags.metrics_listen));
  ASSIGN_OR_RETURN(
      std::unique_ptr<ReanalyseWorker> worker,
      ReanalyseWorker::Start({.coordinator = flags.coordinator,
                              .name = flags.name,
                              .capacity = flags.capacity,
                              .seed = absl::GetFlag(FLAGS_seed),
                              .trajectories_per_round =
                                  absl::GetFlag(FLAGS_trajectories_per_round),
                              .metrics = metrics.get()}));
  rpc::LogWorkerStarted(flags, metrics->port());
  return [metrics = std::move(metrics), worker = std::move(worker)]() mutable {
    worker->Shutdown();
    rpc::LogLine("info", "stopped");
    worker.reset();  // before the metrics it reports to
  };
}

}  // namespace
}  // namespace mmapzero::reanalyse

int main(int argc, char** argv) {
  return mmapzero::rpc::RunServiceMain(argc, argv, "reanalyse", kUsage,
                                       &mmapzero::reanalyse::CheckFlags,
                                       &mmapzero::reanalyse::Start);
}
