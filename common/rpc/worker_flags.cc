#include "common/rpc/worker_flags.h"

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "common/base/address_file.h"
#include "common/rpc/log_line.h"
#include "common/rpc/metrics_endpoint.h"
#include "common/rpc/service_main.h"

ABSL_FLAG(std::string, coordinator, "",
          "the coordinator's gRPC address (required)");
ABSL_FLAG(int, capacity, 1, "jobs served at once");
ABSL_FLAG(std::string, name, "", "a name for humans (default: the host's)");
ABSL_FLAG(int, metrics_port, -1,
          "Prometheus /metrics port; 0: off; default: the role's "
          "(actor 9094, reanalyse 9092)");
ABSL_FLAG(std::string, metrics_host, mmapzero::kDefaultListenHost,
          "host the /metrics endpoint listens on (0.0.0.0: every interface)");
ABSL_FLAG(int, threads, 1, "LibTorch intra-op threads per network call");

namespace mmapzero::rpc {

absl::StatusOr<WorkerFlags> WorkerFlagsFromCommandLine(
    const std::string& role, int default_metrics_port) {
  WorkerFlags flags;
  flags.coordinator = absl::GetFlag(FLAGS_coordinator);
  if (flags.coordinator.empty()) {
    return absl::InvalidArgumentError("--coordinator is required");
  }
  flags.capacity = absl::GetFlag(FLAGS_capacity);
  flags.name = absl::GetFlag(FLAGS_name);
  if (flags.name.empty()) flags.name = HostName(role);
  const int metrics_port = absl::GetFlag(FLAGS_metrics_port);
  flags.metrics_listen =
      MetricsListenAddress(absl::GetFlag(FLAGS_metrics_host),
                           metrics_port < 0 ? default_metrics_port : metrics_port);
  flags.threads = absl::GetFlag(FLAGS_threads);
  if (flags.threads < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--threads: must be >= 1, got ", flags.threads));
  }
  return flags;
}

void LogWorkerStarted(const WorkerFlags& flags, int metrics_port) {
  LogLine("info", "started",
          {{"coordinator", flags.coordinator},
           {"capacity", absl::StrCat(flags.capacity)},
           {"metrics_port", absl::StrCat(metrics_port)}});
}

}  // namespace mmapzero::rpc
