// mmapzero-reanalyse: the reanalyse worker service (reanalyse_worker.h).
//   mmapzero-reanalyse --coordinator HOST:PORT [--capacity N] [--name NAME]
//       [--metrics-port 9092] [--trajectories-per-round 4] [--seed S]
// It serves no gRPC itself: it finds its jobs, their replay servers and
// learners through the coordinator. SIGTERM or SIGINT: every job ends after
// its current round, heartbeats stop.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/rpc/log_line.h"
#include "common/rpc/metrics_endpoint.h"
#include "common/rpc/service_main.h"
#include "reanalyse/reanalyse_metrics.h"
#include "reanalyse/reanalyse_worker.h"

ABSL_FLAG(std::string, coordinator, "",
          "the coordinator's gRPC address (required)");
ABSL_FLAG(int, capacity, 1, "jobs served at once");
ABSL_FLAG(std::string, name, "", "a name for humans (default: the host's)");
ABSL_FLAG(int, metrics_port, 0, "Prometheus /metrics port; 0: off");
ABSL_FLAG(uint64_t, seed, 1, "search seed");
ABSL_FLAG(int, trajectories_per_round, 4,
          "trajectories per SampleForReanalyse");
ABSL_FLAG(int, threads, 1, "LibTorch intra-op threads per network call");

namespace mmapzero::reanalyse {
namespace {

absl::Status Run() {
  const sigset_t signals = rpc::BlockShutdownSignals();
  ReanalyseWorkerOptions options;
  options.coordinator = absl::GetFlag(FLAGS_coordinator);
  if (options.coordinator.empty()) {
    return absl::InvalidArgumentError("--coordinator is required");
  }
  options.capacity = absl::GetFlag(FLAGS_capacity);
  options.name = absl::GetFlag(FLAGS_name);
  if (options.name.empty()) options.name = rpc::HostName("reanalyse");
  options.seed = absl::GetFlag(FLAGS_seed);
  options.trajectories_per_round = absl::GetFlag(FLAGS_trajectories_per_round);
  const int threads = absl::GetFlag(FLAGS_threads);
  if (threads < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--threads: must be >= 1, got ", threads));
  }
  torch::set_num_threads(threads);
  const int metrics_port = absl::GetFlag(FLAGS_metrics_port);
  ASSIGN_OR_RETURN(
      std::unique_ptr<ReanalyseMetrics> metrics,
      ReanalyseMetrics::Start(rpc::MetricsListenAddress(metrics_port)));
  options.metrics = metrics.get();
  ASSIGN_OR_RETURN(std::unique_ptr<ReanalyseWorker> worker,
                   ReanalyseWorker::Start(options));
  rpc::LogLine("info", "started",
               {{"coordinator", options.coordinator},
                {"capacity", absl::StrCat(options.capacity)},
                {"metrics_port", absl::StrCat(metrics->port())}});
  rpc::LogLine("info", "shutting_down",
               {{"signal", rpc::WaitForShutdownSignal(signals)}});
  worker->Shutdown();
  rpc::LogLine("info", "stopped");
  return absl::OkStatus();
}

}  // namespace
}  // namespace mmapzero::reanalyse

int main(int argc, char** argv) {
  return mmapzero::rpc::RunServiceMain(
      argc, argv, "reanalyse",
      "the mmapzero reanalyse worker.\n"
      "  mmapzero-reanalyse --coordinator HOST:PORT [--capacity N] "
      "[--metrics-port N] [--name NAME]",
      &mmapzero::reanalyse::Run);
}
