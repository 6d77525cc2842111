// mmapzero-coordinator: the coordinator service (coordinator_server.h).
//   mmapzero-coordinator --data-dir /var/lib/mmapzero
//       [--listen 127.0.0.1:7070] [--metrics-port 9090]
//       [--config coordinator.json] [--address-file FILE] [--print-config]
// Its config is a CoordinatorConfig (coordinator_config.h); flags given
// override the file's fields. --address-file: once serving, write the
// host:port to dial there (`mmapctl local up` passes --listen 127.0.0.1:0
// and reads the port bound); removed again at shutdown. SIGTERM or SIGINT
// shuts down gracefully: health NOT_SERVING, in-flight calls finish, the
// store closes.
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

#include "absl/flags/flag.h"
#include "common/base/address_file.h"
#include "common/base/status_macros.h"
#include "common/service/service_main.h"
#include "common/workload/proto_io.h"
#include "coordinator/coordinator_config.h"
#include "coordinator/coordinator_server.h"

ABSL_FLAG(std::optional<int64_t>, heartbeat_interval_ms, std::nullopt,
          "heartbeat interval told to workers");
ABSL_FLAG(std::optional<int64_t>, lease_ttl_ms, std::nullopt,
          "a lease's life after its worker's last heartbeat");
ABSL_FLAG(std::optional<int>, max_running_jobs, std::nullopt,
          "jobs running at once; 0: no limit");
ABSL_FLAG(std::optional<int64_t>, heuristic_budget_ms, std::nullopt,
          "each job's seed solve");
ABSL_FLAG(std::optional<int64_t>, tick_interval_ms, std::nullopt,
          "how often budgets and leases are checked");
ABSL_FLAG(std::optional<int>, max_seed_solves, std::nullopt,
          "seed solves at once, 1 to 1024");
ABSL_FLAG(std::optional<int>, max_active_jobs_per_identity, std::nullopt,
          "jobs not yet finished that one client identity may have; 0: no "
          "limit");
ABSL_FLAG(std::optional<int64_t>, max_stored_bytes_per_identity, std::nullopt,
          "bytes one client identity's stored jobs may hold in the "
          "database; 0: no limit");
ABSL_FLAG(std::optional<int64_t>, finished_job_retention_ms, std::nullopt,
          "an ended job is deleted this long after it ended; 0: kept for "
          "ever");
ABSL_FLAG(std::optional<int>, max_finished_jobs, std::nullopt,
          "ended jobs kept, the newest; older ones are deleted; 0: no limit");
ABSL_FLAG(std::optional<int64_t>, lease_rotation_ms, std::nullopt,
          "with more running jobs than actor slots, an actor alone on a "
          "job moves to a job with none after this long; -1: never");

namespace mmapzero::coordinator {
namespace {

absl::Status Check(const CoordinatorConfig& config) {
  return CoordinatorSettingsFromConfig(config).status();
}

absl::StatusOr<service::StopService> Start(const CoordinatorConfig& config) {
  std::cerr << "coordinator config:\n" << ToJson(config) << "\n";
  ASSIGN_OR_RETURN(CoordinatorServiceSettings settings,
                   CoordinatorSettingsFromConfig(config));
  const std::string listen = settings.server.listen;
  ASSIGN_OR_RETURN(std::unique_ptr<CoordinatorServer> server,
                   CoordinatorServer::Start(std::move(settings.server)));
  const std::string address_file = settings.address_file;
  if (!address_file.empty()) {
    RETURN_IF_ERROR(WriteAddressFile(address_file, listen, server->port()));
  }
  return [server = std::move(server), address_file] {
    server->Shutdown();
    if (!address_file.empty()) std::remove(address_file.c_str());
  };
}

}  // namespace
}  // namespace mmapzero::coordinator

int main(int argc, char** argv) {
  return mmapzero::service::RunServiceMain<mmapzero::CoordinatorConfig>(
      argc, argv,
      {.component = "coordinator",
       .usage = "the mmapzero coordinator: jobs, workers, leases, best "
                "solutions.\n  mmapzero-coordinator --data-dir DIR [--listen "
                "HOST:PORT] [--metrics-port N] [--config FILE] "
                "[--address-file FILE] [--print-config]",
       .with_defaults = &mmapzero::coordinator::WithDefaults,
       .check = &mmapzero::coordinator::Check,
       .start = &mmapzero::coordinator::Start});
}
