// mmapzero-actor: the self-play actor service (actor_worker.h).
//   mmapzero-actor --coordinator HOST:PORT [--capacity N] [--name NAME]
//       [--metrics-port 9094] [--seed S] [--drain-seconds 10]
// It serves no gRPC itself: it finds its jobs, their replay servers and
// learners through the coordinator (the flags all such workers share:
// common/rpc/worker_flags.h). SIGTERM or SIGINT: play stops, queued
// trajectories get --drain-seconds to reach replay, heartbeats stop.
#include <torch/torch.h>

#include <memory>
#include <string>
#include <utility>

#include "absl/flags/flag.h"
#include "actor/actor_metrics.h"
#include "actor/actor_worker.h"
#include "common/base/status_macros.h"
#include "common/model/compute_threads.h"
#include "common/rpc/log_line.h"
#include "common/rpc/service_main.h"
#include "common/rpc/worker_flags.h"

constexpr int kDefaultMetricsPort = 9094;
constexpr char kUsage[] =
    "the mmapzero self-play actor.\n"
    "  mmapzero-actor --coordinator HOST:PORT [--capacity N] "
    "[--metrics-port N] [--name NAME]";

ABSL_FLAG(uint64_t, seed, 1, "self-play seed (mixed with each job id)");
ABSL_FLAG(int, trajectory_batch, 8, "trajectories per InsertTrajectories");
ABSL_FLAG(int, max_queued_trajectories, 256,
          "per job; the oldest are dropped while replay is away");
ABSL_FLAG(double, drain_seconds, 10,
          "on shutdown, how long queued trajectories may take to send");

namespace mmapzero::actor {
namespace {

absl::Status CheckFlags() {
  return rpc::WorkerFlagsFromCommandLine("actor", kDefaultMetricsPort).status();
}

absl::StatusOr<rpc::StopService> Start() {
  ASSIGN_OR_RETURN(
      const rpc::WorkerFlags flags,
      rpc::WorkerFlagsFromCommandLine("actor", kDefaultMetricsPort));
  // Small networks and batches: parallelism comes from jobs and actors,
  // not intra-op threads (see common/training/muzero_solver.cc).
  model::SetComputeThreads(flags.threads);
  ASSIGN_OR_RETURN(std::unique_ptr<ActorMetrics> metrics,
                   ActorMetrics::Start(flags.metrics_listen));
  ASSIGN_OR_RETURN(
      std::unique_ptr<ActorWorker> worker,
      ActorWorker::Start(
          {.coordinator = flags.coordinator,
           .name = flags.name,
           .capacity = flags.capacity,
           .seed = absl::GetFlag(FLAGS_seed),
           .trajectory_batch = absl::GetFlag(FLAGS_trajectory_batch),
           .max_queued_trajectories =
               absl::GetFlag(FLAGS_max_queued_trajectories),
           .metrics = metrics.get()}));
  rpc::LogWorkerStarted(flags, metrics->port());
  return [metrics = std::move(metrics), worker = std::move(worker)]() mutable {
    worker->Shutdown(absl::Seconds(absl::GetFlag(FLAGS_drain_seconds)));
    rpc::LogLine("info", "stopped");
    worker.reset();  // before the metrics it reports to
  };
}

}  // namespace
}  // namespace mmapzero::actor

int main(int argc, char** argv) {
  return mmapzero::rpc::RunServiceMain(argc, argv, "actor", kUsage,
                                       &mmapzero::actor::CheckFlags,
                                       &mmapzero::actor::Start);
}
