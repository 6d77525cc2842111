#include "common/rpc/metrics_endpoint.h"

#include <exception>

#include "absl/strings/str_cat.h"

namespace mmapzero::rpc {

std::string MetricsListenAddress(const std::string& host, int port) {
  return port > 0 ? absl::StrCat(host, ":", port) : std::string();
}


absl::StatusOr<MetricsEndpoint> StartMetricsEndpoint(
    const std::string& address,
    const std::vector<std::weak_ptr<prometheus::Collectable>>& collectables) {
  MetricsEndpoint endpoint;
  try {
    endpoint.exposer = std::make_unique<prometheus::Exposer>(address);
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat(
        "metrics: cannot serve /metrics on ", address, ": ", e.what()));
  }
  for (const std::weak_ptr<prometheus::Collectable>& collectable :
       collectables) {
    endpoint.exposer->RegisterCollectable(collectable);
  }
  const std::vector<int> ports = endpoint.exposer->GetListeningPorts();
  endpoint.port = ports.empty() ? 0 : ports.front();
  return endpoint;
}

}  // namespace mmapzero::rpc
