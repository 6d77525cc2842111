// A service's small HTTP server (civetweb, the library prometheus-cpp
// serves /metrics with), on its metrics port: /metrics for Prometheus,
// /healthz for Kubernetes' probes (health_checks.h), and whatever pages a
// service adds (the coordinator's). Plain HTTP: what it serves is the
// metrics' and health's public view, never job data or credentials.
// Pages run on civetweb's threads; a page function must be thread-safe.
#ifndef MMAPZERO_COMMON_METRICS_HTTP_ENDPOINT_H_
#define MMAPZERO_COMMON_METRICS_HTTP_ENDPOINT_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

class CivetServer;
class CivetHandler;

namespace mmapzero::metrics {

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

// A GET handler: the page's response, made at each request.
using HttpPage = std::function<HttpResponse()>;

class HttpEndpoint {
 public:
  // Serves on `address` ("127.0.0.1:0": a free port); Unavailable naming
  // the address when it cannot be bound.
  static absl::StatusOr<std::unique_ptr<HttpEndpoint>> Start(
      const std::string& address);
  ~HttpEndpoint();  // stops serving; in-flight requests finish first

  // Serves GET `path` (exactly that path) with `page` from now on. Call
  // before the endpoint is shared; pages are not removed.
  void AddPage(const std::string& path, HttpPage page);

  int port() const { return port_; }

 private:
  HttpEndpoint() = default;

  std::unique_ptr<CivetServer> server_;
  std::vector<std::unique_ptr<CivetHandler>> handlers_;
  int port_ = 0;
};

}  // namespace mmapzero::metrics

#endif  // MMAPZERO_COMMON_METRICS_HTTP_ENDPOINT_H_
