#include "common/rpc/metrics_endpoint.h"

#include <prometheus/text_serializer.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/rpc/health_checks.h"

namespace mmapzero::rpc {

std::string MetricsListenAddress(const std::string& host, int port) {
  return port > 0 ? absl::StrCat(host, ":", port) : std::string();
}

absl::StatusOr<MetricsEndpoint> StartMetricsEndpoint(
    const std::string& address,
    const std::vector<std::weak_ptr<prometheus::Collectable>>& collectables) {
  MetricsEndpoint endpoint;
  absl::StatusOr<std::unique_ptr<HttpEndpoint>> server =
      HttpEndpoint::Start(address);
  if (!server.ok()) {
    return absl::UnavailableError(absl::StrCat(
        "metrics: cannot serve /metrics on ", address, ": ",
        server.status().message()));
  }
  endpoint.server = *std::move(server);
  endpoint.port = endpoint.server->port();
  endpoint.server->AddPage("/metrics", [collectables](const std::string&) {
    std::vector<prometheus::MetricFamily> families;
    for (const std::weak_ptr<prometheus::Collectable>& weak : collectables) {
      if (std::shared_ptr<prometheus::Collectable> collectable = weak.lock()) {
        std::vector<prometheus::MetricFamily> more = collectable->Collect();
        families.insert(families.end(), std::make_move_iterator(more.begin()),
                        std::make_move_iterator(more.end()));
      }
    }
    return HttpResponse{
        .status = 200,
        .content_type = "text/plain; version=0.0.4; charset=utf-8",
        .body = prometheus::TextSerializer().Serialize(families)};
  });
  endpoint.server->AddPage(
      "/healthz", [](const std::string&) { return ProcessHealth().Page(); });
  return endpoint;
}

}  // namespace mmapzero::rpc
