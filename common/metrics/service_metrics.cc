#include "common/metrics/service_metrics.h"

#include <utility>

#include "common/base/status_macros.h"
#include "common/metrics/metrics_endpoint.h"

namespace mmapzero::metrics {

absl::StatusOr<std::unique_ptr<ServiceMetrics>> ServiceMetrics::Start(
    ServiceMetricsOptions options) {
  std::unique_ptr<ServiceMetrics> metrics(new ServiceMetrics());
  metrics->registry_ = std::make_shared<prometheus::Registry>();
  metrics->rpcs_ =
      RpcMetrics(*metrics->registry_, options.service, options.rpc_latency);
  metrics->scraped_ = std::move(options.scraped);
  ASSIGN_OR_RETURN(MetricsEndpoint endpoint,
                   StartMetricsEndpoint(options.address, {metrics->registry_,
                                                          metrics->scraped_}));
  metrics->http_ = std::move(endpoint.server);
  metrics->port_ = endpoint.port;
  return metrics;
}

ServiceMetrics::~ServiceMetrics() {
  http_.reset();  // no scrape may run on what follows
}

void ServiceMetrics::OnRpc(absl::string_view method, absl::StatusCode code,
                           absl::Duration latency) {
  rpcs_.Record(method, code, latency);
}

}  // namespace mmapzero::metrics
