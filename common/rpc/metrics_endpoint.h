// A service's Prometheus endpoint (/metrics on its own port, prometheus-cpp's
// civetweb Exposer): started on `address` ("0.0.0.0:0" picks a free port)
// with the given collectables registered. prometheus-cpp reports a port it
// cannot bind by throwing; this turns that into Unavailable naming the
// address, so every service handles it as a status.
#ifndef MMAPZERO_COMMON_RPC_METRICS_ENDPOINT_H_
#define MMAPZERO_COMMON_RPC_METRICS_ENDPOINT_H_

#include <prometheus/collectable.h>
#include <prometheus/exposer.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace mmapzero::rpc {

struct MetricsEndpoint {
  std::unique_ptr<prometheus::Exposer> exposer;
  int port = 0;  // the port bound
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
