// GET `path` from an HTTP server on this machine's loopback `port`
// (HTTP/1.0, read to the end): how tests and `mmapctl` check a service's
// Prometheus endpoint without an HTTP client library. Returns the raw
// reply (status line, headers and body), or "" when nothing answers.
#ifndef MMAPZERO_COMMON_METRICS_LOOPBACK_HTTP_H_
#define MMAPZERO_COMMON_METRICS_LOOPBACK_HTTP_H_

#include <string>

namespace mmapzero::metrics {

std::string LoopbackHttpGet(int port, const std::string& path);

}  // namespace mmapzero::metrics

#endif  // MMAPZERO_COMMON_METRICS_LOOPBACK_HTTP_H_
