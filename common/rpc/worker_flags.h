// The flags of the workers that serve no gRPC themselves and find their
// jobs, replay servers and learners through the coordinator (actor,
// reanalyse): --coordinator (required), --capacity, --name, --metrics-port,
// --metrics-host (default 127.0.0.1) and --threads. Defined once here (worker_flags.cc, linked into a binary
// that calls WorkerFlagsFromCommandLine), so the two mains read and check
// them alike; each main defines only the flags it alone has (--seed, ...).
#ifndef MMAPZERO_COMMON_RPC_WORKER_FLAGS_H_
#define MMAPZERO_COMMON_RPC_WORKER_FLAGS_H_

#include <string>

#include "absl/status/statusor.h"

namespace mmapzero::rpc {

struct WorkerFlags {
  std::string coordinator;     // host:port
  int capacity = 1;            // jobs at once
  std::string name;            // --name, else the host's name
  std::string metrics_listen;  // --metrics-host:--metrics-port, or none
  int threads = 1;             // LibTorch intra-op threads per network call
};

// The parsed flags; `role` ("actor") names the worker when neither --name
// nor the host name is there; --metrics-port defaults to
// `default_metrics_port` (each service has its own, so that they can run
// side by side: coordinator 9090, replay 9091, reanalyse 9092, learner
// 9093, actor 9094). InvalidArgument for a missing --coordinator or
// --threads below 1.
absl::StatusOr<WorkerFlags> WorkerFlagsFromCommandLine(
    const std::string& role, int default_metrics_port);

// Logs "started" with the coordinator, the capacity and the metrics port
// bound (0: none).
void LogWorkerStarted(const WorkerFlags& flags, int metrics_port);

}  // namespace mmapzero::rpc

#endif  // MMAPZERO_COMMON_RPC_WORKER_FLAGS_H_
