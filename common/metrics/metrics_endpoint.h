// A service's Prometheus endpoint: /metrics, with the given collectables
// and the process's memory (process_memory.h), and /healthz (the process's
// health checks, health_checks.h) on its own port (http_endpoint.h;
// "0.0.0.0:0" picks a free port). A port that cannot be bound is
// Unavailable naming the address, so every service handles it as a status.
#ifndef MMAPZERO_COMMON_METRICS_METRICS_ENDPOINT_H_
#define MMAPZERO_COMMON_METRICS_METRICS_ENDPOINT_H_

#include <prometheus/collectable.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/metrics/http_endpoint.h"

namespace mmapzero::metrics {

struct MetricsEndpoint {
  std::unique_ptr<HttpEndpoint> server;  // more pages may be added to it
  int port = 0;                          // the port bound
};

absl::StatusOr<MetricsEndpoint> StartMetricsEndpoint(
    const std::string& address,
    const std::vector<std::weak_ptr<prometheus::Collectable>>& collectables);

}  // namespace mmapzero::metrics

#endif  // MMAPZERO_COMMON_METRICS_METRICS_ENDPOINT_H_
