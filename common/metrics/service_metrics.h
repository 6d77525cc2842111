// The /metrics endpoint of a gRPC service whose own metrics are computed at
// each scrape (scraped_family.h; the coordinator's jobs, the replay
// server's tables): that Collectable and the per-RPC metrics
// (rpc_metrics.h) served together on their own port (metrics_endpoint.h).
// It is the rpc::RpcObserver the service's handlers report to.
#ifndef MMAPZERO_COMMON_METRICS_SERVICE_METRICS_H_
#define MMAPZERO_COMMON_METRICS_SERVICE_METRICS_H_

#include <prometheus/collectable.h>
#include <prometheus/registry.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/metrics/http_endpoint.h"
#include "common/metrics/rpc_metrics.h"
#include "common/rpc/rpc_handler.h"

namespace mmapzero::metrics {

struct ServiceMetricsOptions {
  std::string address;       // "0.0.0.0:9090"; port 0 picks a free one
  std::string service;       // mmapzero_<service>_rpcs_total
  bool rpc_latency = false;  // also mmapzero_<service>_rpc_latency_seconds
  // Read at each scrape; what it reads must outlive the metrics.
  std::shared_ptr<prometheus::Collectable> scraped;
};

class ServiceMetrics final : public rpc::RpcObserver {
 public:
  // Unavailable when the port cannot be bound.
  static absl::StatusOr<std::unique_ptr<ServiceMetrics>> Start(
      ServiceMetricsOptions options);
  ~ServiceMetrics() override;

  int port() const { return port_; }
  // The HTTP server of /metrics, for more pages (the coordinator's
  // dashboard).
  HttpEndpoint& http() { return *http_; }
  void OnRpc(absl::string_view method, absl::StatusCode code,
             absl::Duration latency) override;

 private:
  ServiceMetrics() = default;

  std::shared_ptr<prometheus::Registry> registry_;
  RpcMetrics rpcs_;
  std::shared_ptr<prometheus::Collectable> scraped_;
  std::unique_ptr<HttpEndpoint> http_;
  int port_ = 0;
};

}  // namespace mmapzero::metrics

#endif  // MMAPZERO_COMMON_METRICS_SERVICE_METRICS_H_
