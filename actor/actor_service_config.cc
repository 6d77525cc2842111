#include "actor/actor_service_config.h"

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/service/torch_threads.h"
#include "common/service/worker_identity.h"

namespace mmapzero::actor {

ActorServiceConfig WithDefaults(ActorServiceConfig given) {
  ActorServiceConfig config;
  config.mutable_worker()->set_capacity(1);
  config.mutable_worker()->set_metrics_port(9094);
  config.set_torch_threads(1);
  config.set_seed(1);
  config.set_trajectory_batch(8);
  config.set_max_queued_trajectories(256);
  config.set_drain_seconds(10);
  config.MergeFrom(given);
  return config;
}

absl::StatusOr<ActorServiceSettings> ActorSettingsFromConfig(
    const ActorServiceConfig& given) {
  const ActorServiceConfig config = WithDefaults(given);
  ActorServiceSettings settings;
  ASSIGN_OR_RETURN(const service::WorkerIdentity identity,
                   service::WorkerIdentityFromConfig(
                       config.worker(), "actor", /*listen_host=*/"",
                       service::CoordinatorIs::kRequired));
  settings.metrics_listen = identity.metrics_listen;
  ASSIGN_OR_RETURN(settings.torch_threads,
                   service::TorchThreadsFromConfig(config.torch_threads()));
  if (!(config.drain_seconds() >= 0 && config.drain_seconds() <= 3600)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--drain-seconds: must be in [0, 3600], got ", config.drain_seconds()));
  }
  settings.drain = absl::Seconds(config.drain_seconds());
  settings.worker = {
      .coordinator = identity.coordinator,
      .name = identity.name,
      .capacity = identity.capacity,
      .seed = config.seed(),
      .trajectory_batch = config.trajectory_batch(),
      .max_queued_trajectories = config.max_queued_trajectories()};
  RETURN_IF_ERROR(CheckActorWorkerOptions(settings.worker));
  return settings;
}

}  // namespace mmapzero::actor
