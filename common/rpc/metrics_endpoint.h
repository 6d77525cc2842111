// A service's Prometheus endpoint: /metrics, with the given collectables,
// and /healthz (the process's health checks, health_checks.h) on its own
// port (http_endpoint.h; "0.0.0.0:0" picks a free port). A port that
// cannot be bound is Unavailable naming the address, so every service
// handles it as a status.
#ifndef MMAPZERO_COMMON_RPC_METRICS_ENDPOINT_H_
#define MMAPZERO_COMMON_RPC_METRICS_ENDPOINT_H_

#include <prometheus/collectable.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/rpc/http_endpoint.h"

namespace mmapzero::rpc {

struct MetricsEndpoint {
  std::unique_ptr<HttpEndpoint> server;  // more pages may be added to it
  int port = 0;                          // the port bound
};

// The address a --metrics-port flag asks for on `host` (a service's
// ListenHost, common/base/address_file.h): "HOST:PORT", or "" (no
// endpoint) for port 0.
std::string MetricsListenAddress(const std::string& host, int port);

absl::StatusOr<MetricsEndpoint> StartMetricsEndpoint(
    const std::string& address,
    const std::vector<std::weak_ptr<prometheus::Collectable>>& collectables);

}  // namespace mmapzero::rpc

#endif  // MMAPZERO_COMMON_RPC_METRICS_ENDPOINT_H_
