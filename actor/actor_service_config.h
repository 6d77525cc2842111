// mmapzero-actor's config (ActorServiceConfig, proto/service_config.proto)
// and the one place its values are checked: the defaults of every field,
// and the worker options they make.
#ifndef MMAPZERO_ACTOR_ACTOR_SERVICE_CONFIG_H_
#define MMAPZERO_ACTOR_ACTOR_SERVICE_CONFIG_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "actor/actor_worker.h"
#include "proto/service_config.pb.h"

namespace mmapzero::actor {

// What the service starts from (the worker's metrics are made at start).
struct ActorServiceSettings {
  ActorWorkerOptions worker;
  std::string metrics_listen;  // "": no /metrics
  int torch_threads = 1;       // 0: LibTorch's default
  absl::Duration drain;        // for queued trajectories at shutdown

  bool operator==(const ActorServiceSettings&) const = default;
};

// `given` over the defaults: capacity 1, metrics port 9094 on 127.0.0.1,
// one LibTorch thread (small networks and batches: parallelism comes from
// jobs and actors; docs/agent.md), seed 1, 8 trajectories per insert, 256
// queued per job, 10 s of drain.
ActorServiceConfig WithDefaults(ActorServiceConfig given);

// The settings of `given` over the defaults; InvalidArgument naming the
// flag of a missing or out-of-range value.
absl::StatusOr<ActorServiceSettings> ActorSettingsFromConfig(
    const ActorServiceConfig& config);

}  // namespace mmapzero::actor

#endif  // MMAPZERO_ACTOR_ACTOR_SERVICE_CONFIG_H_
