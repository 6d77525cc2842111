// mmapzero-replay: the replay service (replay_server.h).
//   mmapzero-replay --data-dir /var/lib/mmapzero [--listen 0.0.0.0:7071]
//       [--coordinator host:7070] [--advertise host:7071]
//       [--metrics-port 9091] [--config replay.json] [--print-config]
// Its config is a ReplayServiceConfig (replay_service_config.h); flags
// given override the file's fields. SIGTERM or SIGINT shuts down
// gracefully: health NOT_SERVING, in-flight calls finish, heartbeats stop,
// every table is checkpointed.
#include <cstdint>
#include <optional>
#include <string>

#include "absl/flags/flag.h"
#include "common/base/address_file.h"
#include "common/base/status_macros.h"
#include "common/service/service_main.h"
#include "replay/replay_service_config.h"

ABSL_FLAG(std::optional<int>, checkpoint_seconds, std::nullopt,
          "seconds between checkpoints of the tables that changed");
ABSL_FLAG(std::optional<int>, default_replay_size, std::nullopt,
          "trajectories kept for a job whose config is not known yet");
ABSL_FLAG(std::optional<int64_t>, max_table_mib, std::nullopt,
          "memory per job's table in MiB; the oldest games go past it "
          "(0: no limit)");
ABSL_FLAG(std::optional<int64_t>, max_total_mib, std::nullopt,
          "memory of all tables together in MiB: each table may hold its "
          "share (and at most --max-table-mib); 0: no limit");
ABSL_FLAG(std::optional<int>, max_unassigned_tables, std::nullopt,
          "tables made by inserts before their job's assignment, at most");
ABSL_FLAG(std::optional<double>, table_retention_hours, std::nullopt,
          "hours a table out of this server's assignments (job finished or "
          "moved) is kept with its checkpoint before it is deleted; 0: "
          "for ever");
ABSL_FLAG(std::optional<std::string>, sampler, std::nullopt,
          "uniform or prioritised");
ABSL_FLAG(std::optional<double>, priority_exponent, std::nullopt,
          "prioritised: alpha");
ABSL_FLAG(std::optional<int64_t>, min_positions, std::nullopt,
          "steps a table holds before SampleBatch serves it");
ABSL_FLAG(std::optional<double>, samples_per_insert, std::nullopt,
          "windows sampled per inserted step at most; 0: no rate limit");
ABSL_FLAG(std::optional<int64_t>, rate_limit_slack, std::nullopt,
          "windows the learner may sample ahead of the ratio");
ABSL_FLAG(std::optional<int>, rate_limit_wait_ms, std::nullopt,
          "how long SampleBatch waits for inserts before "
          "FAILED_PRECONDITION");
ABSL_FLAG(std::optional<int>, max_message_mb, std::nullopt,
          "gRPC message limit in MiB");

namespace mmapzero::replay {
namespace {

absl::Status Check(const ReplayServiceConfig& config) {
  return ReplaySettingsFromConfig(config).status();
}

absl::StatusOr<service::StopService> Start(const ReplayServiceConfig& config) {
  ASSIGN_OR_RETURN(ReplayServiceSettings settings,
                   ReplaySettingsFromConfig(config));
  const std::string listen = settings.server.listen;
  ASSIGN_OR_RETURN(std::unique_ptr<ReplayServer> server,
                   ReplayServer::Start(std::move(settings.server)));
  if (!settings.address_file.empty()) {
    RETURN_IF_ERROR(
        WriteAddressFile(settings.address_file, listen, server->port()));
  }
  return [server = std::move(server)] { server->Shutdown(); };
}

}  // namespace
}  // namespace mmapzero::replay

int main(int argc, char** argv) {
  return mmapzero::service::RunServiceMain<mmapzero::ReplayServiceConfig>(
      argc, argv,
      {.component = "replay",
       .usage = "the mmapzero replay service: per-job tables of self-play "
                "games.\n  mmapzero-replay --data-dir DIR [--listen "
                "HOST:PORT] [--coordinator HOST:PORT] [--config FILE] "
                "[--print-config]",
       .with_defaults = &mmapzero::replay::WithDefaults,
       .check = &mmapzero::replay::Check,
       .start = &mmapzero::replay::Start});
}
