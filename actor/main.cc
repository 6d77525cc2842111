// mmapzero-actor: the self-play actor service (actor_worker.h).
//   mmapzero-actor --coordinator HOST:PORT [--capacity N] [--name NAME]
//       [--metrics-port 9091] [--seed S] [--drain-seconds 10]
// It serves no gRPC itself: it finds its jobs, their replay servers and
// learners through the coordinator. SIGTERM or SIGINT: play stops, queued
// trajectories get --drain-seconds to reach replay, heartbeats stop.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "actor/actor_metrics.h"
#include "actor/actor_worker.h"
#include "common/base/status_macros.h"
#include "common/rpc/log_line.h"
#include "common/rpc/metrics_endpoint.h"
#include "common/rpc/service_main.h"

ABSL_FLAG(std::string, coordinator, "",
          "the coordinator's gRPC address (required)");
ABSL_FLAG(int, capacity, 1, "jobs served at once");
ABSL_FLAG(std::string, name, "", "a name for humans (default: the host's)");
ABSL_FLAG(int, metrics_port, 0, "Prometheus /metrics port; 0: off");
ABSL_FLAG(uint64_t, seed, 1, "self-play seed (mixed with each job id)");
ABSL_FLAG(int, trajectory_batch, 8, "trajectories per InsertTrajectories");
ABSL_FLAG(int, max_queued_trajectories, 256,
          "per job; the oldest are dropped while replay is away");
ABSL_FLAG(double, drain_seconds, 10,
          "on shutdown, how long queued trajectories may take to send");
ABSL_FLAG(int, threads, 1, "LibTorch intra-op threads per network call");

namespace mmapzero::actor {
namespace {

absl::Status Run() {
  const sigset_t signals = rpc::BlockShutdownSignals();
  ActorWorkerOptions options;
  options.coordinator = absl::GetFlag(FLAGS_coordinator);
  if (options.coordinator.empty()) {
    return absl::InvalidArgumentError("--coordinator is required");
  }
  options.capacity = absl::GetFlag(FLAGS_capacity);
  options.name = absl::GetFlag(FLAGS_name);
  if (options.name.empty()) options.name = rpc::HostName("actor");
  options.seed = absl::GetFlag(FLAGS_seed);
  options.trajectory_batch = absl::GetFlag(FLAGS_trajectory_batch);
  options.max_queued_trajectories =
      absl::GetFlag(FLAGS_max_queued_trajectories);
  const int threads = absl::GetFlag(FLAGS_threads);
  if (threads < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--threads: must be >= 1, got ", threads));
  }
  // Small networks and batches: parallelism comes from jobs and actors,
  // not intra-op threads (see common/model/muzero_solver.cc).
  torch::set_num_threads(threads);
  const int metrics_port = absl::GetFlag(FLAGS_metrics_port);
  ASSIGN_OR_RETURN(
      std::unique_ptr<ActorMetrics> metrics,
      ActorMetrics::Start(rpc::MetricsListenAddress(metrics_port)));
  options.metrics = metrics.get();
  ASSIGN_OR_RETURN(std::unique_ptr<ActorWorker> worker,
                   ActorWorker::Start(options));
  rpc::LogLine("info", "started",
               {{"coordinator", options.coordinator},
                {"capacity", absl::StrCat(options.capacity)},
                {"metrics_port", absl::StrCat(metrics->port())}});
  rpc::LogLine("info", "shutting_down",
               {{"signal", rpc::WaitForShutdownSignal(signals)}});
  worker->Shutdown(absl::Seconds(absl::GetFlag(FLAGS_drain_seconds)));
  rpc::LogLine("info", "stopped");
  return absl::OkStatus();
}

}  // namespace
}  // namespace mmapzero::actor

int main(int argc, char** argv) {
  return mmapzero::rpc::RunServiceMain(
      argc, argv, "actor",
      "the mmapzero self-play actor.\n"
      "  mmapzero-actor --coordinator HOST:PORT [--capacity N] "
      "[--metrics-port N] [--name NAME]",
      &mmapzero::actor::Run);
}
