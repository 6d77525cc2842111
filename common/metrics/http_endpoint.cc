#include "common/metrics/http_endpoint.h"

#include <CivetServer.h>

#include <exception>
#include <utility>

#include "absl/strings/str_cat.h"

namespace mmapzero::metrics {
namespace {

const char* ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 503:
      return "Service Unavailable";
    default:
      return "Internal Server Error";
  }
}

class PageHandler : public CivetHandler {
 public:
  explicit PageHandler(HttpPage page) : page_(std::move(page)) {}

  bool handleGet(CivetServer* /*server*/, mg_connection* connection) override {
    HttpResponse response;
    try {
      response = page_();
    } catch (const std::exception& e) {
      response = {500, "text/plain; charset=utf-8",
                  absl::StrCat("internal error: ", e.what(), "\n")};
    }
    const std::string head = absl::StrCat(
        "HTTP/1.1 ", response.status, " ", ReasonPhrase(response.status),
        "\r\nContent-Type: ", response.content_type,
        "\r\nContent-Length: ", response.body.size(),
        "\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n");
    mg_write(connection, head.data(), head.size());
    mg_write(connection, response.body.data(), response.body.size());
    return true;
  }

 private:
  HttpPage page_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<HttpEndpoint>> HttpEndpoint::Start(
    const std::string& address) {
  std::unique_ptr<HttpEndpoint> endpoint(new HttpEndpoint());
  try {
    endpoint->server_ = std::make_unique<CivetServer>(std::vector<std::string>{
        "listening_ports", address, "num_threads", "2"});
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat(
        "cannot serve HTTP (/metrics, /healthz) on ", address, ": ", e.what()));
  }
  const std::vector<int> ports = endpoint->server_->getListeningPorts();
  endpoint->port_ = ports.empty() ? 0 : ports.front();
  return endpoint;
}

HttpEndpoint::~HttpEndpoint() {
  if (server_ != nullptr) server_->close();
}

void HttpEndpoint::AddPage(const std::string& path, HttpPage page) {
  handlers_.push_back(std::make_unique<PageHandler>(std::move(page)));
  // "$": this path only, not every path under it.
  server_->addHandler(absl::StrCat(path, "$"), handlers_.back().get());
}

}  // namespace mmapzero::metrics
