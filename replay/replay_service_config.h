// mmapzero-replay's config (ReplayServiceConfig, proto/service_config.proto)
// and the one place its values are checked: the defaults of every field,
// and the server options they make.
#ifndef MMAPZERO_REPLAY_REPLAY_SERVICE_CONFIG_H_
#define MMAPZERO_REPLAY_REPLAY_SERVICE_CONFIG_H_

#include <string>

#include "absl/status/statusor.h"
#include "proto/service_config.pb.h"
#include "replay/replay_server.h"

namespace mmapzero::replay {

// What the service starts from.
struct ReplayServiceSettings {
  ReplayServerOptions server;
  std::string address_file;  // "": none

  bool operator==(const ReplayServiceSettings&) const = default;
};

// `given` over the defaults: listen 127.0.0.1:7071, metrics port 9091, 64
// jobs, checkpoints every 60 s, 2000 trajectories for a job whose config is
// not known yet, 4 GiB per table and 12 GiB in all, 4 unassigned tables,
// tables out of the assignments kept 24 h, uniform sampling (alpha 1),
// 1000 steps before sampling, 8 samples per insert with a slack of 4096,
// 500 ms rate-limit wait, 64 MiB messages, seed 1.
ReplayServiceConfig WithDefaults(ReplayServiceConfig given);

// The settings of `given` over the defaults; InvalidArgument naming the
// flag of a missing or out-of-range value.
absl::StatusOr<ReplayServiceSettings> ReplaySettingsFromConfig(
    const ReplayServiceConfig& config);

}  // namespace mmapzero::replay

#endif  // MMAPZERO_REPLAY_REPLAY_SERVICE_CONFIG_H_
