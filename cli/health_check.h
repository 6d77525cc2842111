// A gRPC health check (grpc.health.v1.Health/Check, overall status "") of
// a service at an address, as `mmapctl local` uses it to tell when a
// service it started is ready (the call itself: common/rpc/
// health_check_client.h).
#ifndef MMAPZERO_CLI_HEALTH_CHECK_H_
#define MMAPZERO_CLI_HEALTH_CHECK_H_

#include <string>

#include "absl/time/time.h"

namespace mmapzero::cli {

struct HealthResult {
  bool serving = false;
  // "SERVING", "NOT_SERVING", "UNKNOWN", or "unreachable: <gRPC message>".
  std::string text;
};

// Blocks at most `deadline`.
HealthResult CheckHealth(const std::string& address, absl::Duration deadline);

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_HEALTH_CHECK_H_
