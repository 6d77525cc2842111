// mmapzero-actor: the self-play actor service (actor_worker.h).
//   mmapzero-actor --coordinator HOST:PORT [--capacity N] [--name NAME]
//       [--metrics-port 9094] [--seed S] [--drain-seconds 10]
//       [--config actor.json] [--print-config]
// Its config is an ActorServiceConfig (actor_service_config.h). It serves
// no gRPC itself: it finds its jobs, their replay servers and learners
// through the coordinator. SIGTERM or SIGINT: play stops, queued
// trajectories get --drain-seconds to reach replay, heartbeats stop.
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/flags/flag.h"
#include "actor/actor_metrics.h"
#include "actor/actor_service_config.h"
#include "common/base/status_macros.h"
#include "common/model/compute_threads.h"
#include "common/service/log_line.h"
#include "common/service/service_main.h"
#include "common/service/worker_identity.h"

ABSL_FLAG(std::optional<int>, trajectory_batch, std::nullopt,
          "trajectories per InsertTrajectories");
ABSL_FLAG(std::optional<int>, max_queued_trajectories, std::nullopt,
          "per job; the oldest are dropped while replay is away");
ABSL_FLAG(std::optional<double>, drain_seconds, std::nullopt,
          "on shutdown, how long queued trajectories may take to send");

namespace mmapzero::actor {
namespace {

absl::Status Check(const ActorServiceConfig& config) {
  return ActorSettingsFromConfig(config).status();
}

absl::StatusOr<service::StopService> Start(const ActorServiceConfig& config) {
  ASSIGN_OR_RETURN(ActorServiceSettings settings,
                   ActorSettingsFromConfig(config));
  model::SetComputeThreads(settings.torch_threads);
  ASSIGN_OR_RETURN(std::unique_ptr<ActorMetrics> metrics,
                   ActorMetrics::Start(settings.metrics_listen));
  settings.worker.metrics = metrics.get();
  ASSIGN_OR_RETURN(std::unique_ptr<ActorWorker> worker,
                   ActorWorker::Start(settings.worker));
  service::LogWorkerStarted(settings.worker.coordinator,
                            settings.worker.capacity, metrics->port());
  return [metrics = std::move(metrics), worker = std::move(worker),
          drain = settings.drain]() mutable {
    worker->Shutdown(drain);
    service::LogLine("info", "stopped");
    worker.reset();  // before the metrics it reports to
  };
}

}  // namespace
}  // namespace mmapzero::actor

int main(int argc, char** argv) {
  return mmapzero::service::RunServiceMain<mmapzero::ActorServiceConfig>(
      argc, argv,
      {.component = "actor",
       .usage = "the mmapzero self-play actor.\n  mmapzero-actor "
                "--coordinator HOST:PORT [--capacity N] [--metrics-port N] "
                "[--name NAME] [--config FILE] [--print-config]",
       .with_defaults = &mmapzero::actor::WithDefaults,
       .check = &mmapzero::actor::Check,
       .start = &mmapzero::actor::Start});
}
