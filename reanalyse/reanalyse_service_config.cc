#include "reanalyse/reanalyse_service_config.h"

#include "common/base/status_macros.h"
#include "common/service/torch_threads.h"
#include "common/service/worker_identity.h"

namespace mmapzero::reanalyse {

ReanalyseServiceConfig WithDefaults(ReanalyseServiceConfig given) {
  ReanalyseServiceConfig config;
  config.mutable_worker()->set_capacity(1);
  config.mutable_worker()->set_metrics_port(9092);
  config.set_torch_threads(1);
  config.set_seed(1);
  config.set_trajectories_per_round(4);
  config.MergeFrom(given);
  return config;
}

absl::StatusOr<ReanalyseServiceSettings> ReanalyseSettingsFromConfig(
    const ReanalyseServiceConfig& given) {
  const ReanalyseServiceConfig config = WithDefaults(given);
  ReanalyseServiceSettings settings;
  ASSIGN_OR_RETURN(const service::WorkerIdentity identity,
                   service::WorkerIdentityFromConfig(
                       config.worker(), "reanalyse", /*listen_host=*/"",
                       service::CoordinatorIs::kRequired));
  settings.metrics_listen = identity.metrics_listen;
  ASSIGN_OR_RETURN(settings.torch_threads,
                   service::TorchThreadsFromConfig(config.torch_threads()));
  settings.worker = {.coordinator = identity.coordinator,
                     .name = identity.name,
                     .capacity = identity.capacity,
                     .seed = config.seed(),
                     .trajectories_per_round = config.trajectories_per_round()};
  RETURN_IF_ERROR(CheckReanalyseWorkerOptions(settings.worker));
  return settings;
}

}  // namespace mmapzero::reanalyse
