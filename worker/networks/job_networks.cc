#include "worker/networks/job_networks.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/features/config_presets.h"

namespace mmapzero::worker {

absl::StatusOr<JobNetworks> CreateJobNetworks(const std::string& job_id,
                                              const MuZeroConfig& config,
                                              absl::Duration parameter_poll) {
  if (absl::Status status = features::CheckMuZeroConfig(config); !status.ok()) {
    return InJob(job_id, status);
  }
  const model::ObservationShape shape = model::ShapeOf(config.features());
  absl::StatusOr<model::MuZeroNetwork> network =
      model::CreateNetwork(config.network(), shape);
  if (!network.ok()) return InJob(job_id, network.status());
  absl::StatusOr<model::MuZeroNetwork> staging =
      model::CreateNetwork(config.network(), shape);
  if (!staging.ok()) return InJob(job_id, staging.status());
  auto poller = std::make_unique<ParameterPoller>(
      ParameterPollerOptions{.job_id = job_id,
                             .interval = parameter_poll,
                             .rpc_deadline = absl::Seconds(30)},
      *std::move(staging));
  return JobNetworks{.network = *std::move(network),
                     .poller = std::move(poller)};
}

absl::Status InJob(const std::string& job_id, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat("job ", job_id, ": ", status.message()));
}

}  // namespace mmapzero::worker
