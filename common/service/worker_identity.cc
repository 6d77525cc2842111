#include "common/service/worker_identity.h"

#include "absl/strings/str_cat.h"
#include "common/base/address_file.h"
#include "common/service/log_line.h"
#include "common/service/service_main.h"

namespace mmapzero::service {

absl::StatusOr<WorkerIdentity> WorkerIdentityFromConfig(
    const WorkerIdentityConfig& config, const std::string& role,
    const std::string& listen_host, CoordinatorIs coordinator) {
  WorkerIdentity identity;
  identity.coordinator = config.coordinator();
  if (identity.coordinator.empty() && coordinator == CoordinatorIs::kRequired) {
    return absl::InvalidArgumentError("--coordinator is required");
  }
  identity.name = config.name().empty() ? HostName(role) : config.name();
  identity.capacity = config.capacity();
  if (identity.capacity < 1 || identity.capacity > 1024) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--capacity: must be in 1..1024, got ", identity.capacity));
  }
  const int port = config.metrics_port();
  if (port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--metrics-port: 0 to 65535, got ", port));
  }
  std::string host = config.metrics_host();
  if (host.empty())
    host = listen_host.empty() ? kDefaultListenHost : listen_host;
  identity.metrics_listen = MetricsListenAddress(host, port);
  return identity;
}

void LogWorkerStarted(const std::string& coordinator, int capacity,
                      int metrics_port) {
  service::LogLine("info", "started",
                   {{"coordinator", coordinator},
                    {"capacity", absl::StrCat(capacity)},
                    {"metrics_port", absl::StrCat(metrics_port)}});
}

}  // namespace mmapzero::service
