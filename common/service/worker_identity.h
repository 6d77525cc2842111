// Who a worker is to the coordinator, from its WorkerIdentityConfig
// (proto/service_config.proto; flags --coordinator, --name, --capacity,
// --metrics-port, --metrics-host): one reading and one set of checks for
// the replay, learner, actor and reanalyse services.
#ifndef MMAPZERO_COMMON_SERVICE_WORKER_IDENTITY_H_
#define MMAPZERO_COMMON_SERVICE_WORKER_IDENTITY_H_

#include <string>

#include "absl/status/statusor.h"
#include "proto/service_config.pb.h"

namespace mmapzero::service {

struct WorkerIdentity {
  std::string coordinator;     // host:port; "" only where allowed
  std::string name;            // the config's, else the host's
  int capacity = 1;            // jobs at once
  std::string metrics_listen;  // host:port of /metrics, "" for none

  bool operator==(const WorkerIdentity&) const = default;
};

// Whether a worker may run without a coordinator (the replay service
// serves standalone).
enum class CoordinatorIs { kRequired, kOptional };

// The identity; `role` ("actor") names the worker when neither the config
// nor the host has a name; /metrics listens on metrics_host, else on
// `listen_host` (the service's gRPC host; "" for a service without one:
// 127.0.0.1). InvalidArgument naming the flag for a missing coordinator,
// a capacity outside 1..1024 or a port outside 0..65535.
absl::StatusOr<WorkerIdentity> WorkerIdentityFromConfig(
    const WorkerIdentityConfig& config, const std::string& role,
    const std::string& listen_host, CoordinatorIs coordinator);

// Logs "started" with the coordinator, the capacity and the metrics port
// bound (0: none).
void LogWorkerStarted(const std::string& coordinator, int capacity,
                      int metrics_port);

}  // namespace mmapzero::service

#endif  // MMAPZERO_COMMON_SERVICE_WORKER_IDENTITY_H_
