#include "common/metrics/metrics_endpoint.h"

#include <prometheus/text_serializer.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/metrics/health_checks.h"
#include "common/metrics/process_memory.h"

namespace mmapzero::metrics {
namespace {

void Append(std::vector<prometheus::MetricFamily> more,
            std::vector<prometheus::MetricFamily>* families) {
  families->insert(families->end(), std::make_move_iterator(more.begin()),
                   std::make_move_iterator(more.end()));
}

}  // namespace

absl::StatusOr<MetricsEndpoint> StartMetricsEndpoint(
    const std::string& address,
    const std::vector<std::weak_ptr<prometheus::Collectable>>& collectables) {
  MetricsEndpoint endpoint;
  ASSIGN_OR_RETURN(endpoint.server, HttpEndpoint::Start(address));
  endpoint.port = endpoint.server->port();
  endpoint.server->AddPage("/metrics", [collectables] {
    std::vector<prometheus::MetricFamily> families;
    for (const std::weak_ptr<prometheus::Collectable>& weak : collectables) {
      if (std::shared_ptr<prometheus::Collectable> collectable = weak.lock()) {
        Append(collectable->Collect(), &families);
      }
    }
    Append(ProcessMemoryFamilies(), &families);
    return HttpResponse{
        .status = 200,
        .content_type = "text/plain; version=0.0.4; charset=utf-8",
        .body = prometheus::TextSerializer().Serialize(families)};
  });
  endpoint.server->AddPage("/healthz", [] { return ProcessHealth().Page(); });
  return endpoint;
}

}  // namespace mmapzero::metrics
