// The coordinator's configuration as data (proto/coordinator_config.proto)
// and the one place its values are checked: read from a JSON file, flags
// over its fields (common/service/service_config.h), the defaults of the
// fields left unset, and the server options they make. main prints the
// effective config at start.
#ifndef MMAPZERO_COORDINATOR_COORDINATOR_CONFIG_H_
#define MMAPZERO_COORDINATOR_COORDINATOR_CONFIG_H_

#include <string>

#include "absl/status/statusor.h"
#include "coordinator/coordinator_server.h"
#include "proto/coordinator_config.pb.h"

namespace mmapzero::coordinator {

// What the service starts from.
struct CoordinatorServiceSettings {
  CoordinatorServerOptions server;
  std::string address_file;  // "": none

  bool operator==(const CoordinatorServiceSettings&) const = default;
};

// `given` over the defaults of the fields it leaves unset: listen
// 127.0.0.1:7070 (loopback; 0.0.0.0:7070 to serve other hosts), no
// metrics (port 0), heartbeat 2 s, lease TTL 10 s, no limit on running
// jobs, heuristic 10 s, tick 1 s, 2 seed solves at once, lease rotation
// 60 s, no per-identity limits, ended jobs kept for ever.
CoordinatorConfig WithDefaults(CoordinatorConfig given);

// The settings of an effective config (WithDefaults); InvalidArgument
// naming the flag of a missing or out-of-range field. metrics_port > 0
// serves metrics on the listen address's host, port metrics_port.
absl::StatusOr<CoordinatorServiceSettings> CoordinatorSettingsFromConfig(
    const CoordinatorConfig& config);

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_COORDINATOR_CONFIG_H_
