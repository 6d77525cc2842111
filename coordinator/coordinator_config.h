// The coordinator's configuration as data (proto/coordinator_config.proto):
// read from a JSON file, fields left 0 or empty take their defaults, and
// main prints the result (common/workload/proto_io.h ToJson) at start.
#ifndef MMAPZERO_COORDINATOR_COORDINATOR_CONFIG_H_
#define MMAPZERO_COORDINATOR_COORDINATOR_CONFIG_H_

#include <string>

#include "absl/status/statusor.h"
#include "coordinator/coordinator_server.h"
#include "proto/coordinator_config.pb.h"

namespace mmapzero::coordinator {

// ReadProtoFile (JSON or binary); errors name the file and field.
absl::StatusOr<CoordinatorConfig> LoadCoordinatorConfig(
    const std::string& path);

// `config` with the defaults in every field left 0 or empty that has one:
// listen 127.0.0.1:7070 (loopback; 0.0.0.0:7070 to serve other hosts),
// heartbeat 2 s, lease TTL 10 s, heuristic 10 s,
// tick 1 s. (metrics_port and max_running_jobs mean "off" at 0.)
CoordinatorConfig WithDefaults(CoordinatorConfig config);

// Server options from WithDefaults(config); InvalidArgument naming a
// negative or out-of-range field. metrics_port > 0 serves metrics on the
// listen address's host, port metrics_port.
absl::StatusOr<CoordinatorServerOptions> ServerOptionsFromConfig(
    const CoordinatorConfig& config);

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_COORDINATOR_CONFIG_H_
