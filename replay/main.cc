// mmapzero-replay: the replay service (replay_server.h).
//   mmapzero-replay --data-dir /var/lib/mmapzero [--listen 0.0.0.0:7071]
//       [--coordinator host:7070] [--advertise host:7071]
//       [--metrics-port 9091] [--flagfile replay.flags]
// A config file is an absl --flagfile (one --flag=value per line); flags
// given after it override it. SIGTERM or SIGINT shuts down gracefully:
// health NOT_SERVING, in-flight calls finish, heartbeats stop, every table
// is checkpointed.
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "common/base/address_file.h"
#include "common/base/status_macros.h"
#include "common/rpc/metrics_endpoint.h"
#include "common/rpc/service_main.h"
#include "replay/replay_server.h"

constexpr char kUsage[] =
    "the mmapzero replay service: per-job tables of self-play games.\n"
    "  mmapzero-replay --data-dir DIR [--listen HOST:PORT] "
    "[--coordinator HOST:PORT] [--metrics-port N] [--flagfile FILE]";

ABSL_FLAG(std::string, listen, "127.0.0.1:7071",
          "gRPC address (and /metrics' host); 0.0.0.0:7071 for every "
          "interface");
ABSL_FLAG(std::string, advertise, "",
          "host:port registered with the coordinator (default: the listen "
          "address, 127.0.0.1 for a wildcard host)");
ABSL_FLAG(std::string, data_dir, "",
          "folder of the checkpoints, <data-dir>/replay/<job>/ (required)");
ABSL_FLAG(std::string, address_file, "",
          "file to write the dialable host:port to once serving");
ABSL_FLAG(int, metrics_port, 9091, "Prometheus /metrics port; 0: off");
ABSL_FLAG(std::string, coordinator, "",
          "coordinator host:port; empty: standalone (tables made on insert)");
ABSL_FLAG(int, jobs, 64, "jobs this server takes from the coordinator");
ABSL_FLAG(std::string, name, "", "name shown to the coordinator");
ABSL_FLAG(int, checkpoint_seconds, 60,
          "seconds between checkpoints of the tables that changed");
ABSL_FLAG(int, default_replay_size, 2000,
          "trajectories kept for a job whose config is not known yet");
ABSL_FLAG(int64_t, max_table_mib, 4096,
          "memory per job's table in MiB; the oldest games go past it "
          "(0: no limit)");
ABSL_FLAG(int64_t, max_total_mib, 12288,
          "memory of all tables together in MiB: each table may hold its "
          "share (and at most --max-table-mib); 0: no limit");
ABSL_FLAG(int, max_unassigned_tables, 4,
          "tables made by inserts before their job's assignment, at most");
ABSL_FLAG(double, table_retention_hours, 24,
          "hours a table out of this server's assignments (job finished or "
          "moved) is kept with its checkpoint before it is deleted; 0: "
          "for ever");
ABSL_FLAG(std::string, sampler, "uniform", "uniform or prioritised");
ABSL_FLAG(double, priority_exponent, 1.0, "prioritised: alpha");
ABSL_FLAG(int64_t, min_positions, 1000,
          "steps a table holds before SampleBatch serves it");
ABSL_FLAG(double, samples_per_insert, 8.0,
          "windows sampled per inserted step at most; 0: no rate limit");
ABSL_FLAG(int64_t, rate_limit_slack, 4096,
          "windows the learner may sample ahead of the ratio");
ABSL_FLAG(int, rate_limit_wait_ms, 500,
          "how long SampleBatch waits for inserts before "
          "FAILED_PRECONDITION");
ABSL_FLAG(int, max_message_mb, 64, "gRPC message limit in MiB");
ABSL_FLAG(uint64_t, seed, 1, "the tables' sampling seed");

namespace mmapzero::replay {
namespace {

absl::StatusOr<ReplayServerOptions> OptionsFromFlags() {
  ReplayServerOptions options;
  options.listen = absl::GetFlag(FLAGS_listen);
  options.advertise = absl::GetFlag(FLAGS_advertise);
  options.coordinator = absl::GetFlag(FLAGS_coordinator);
  options.job_capacity = absl::GetFlag(FLAGS_jobs);
  options.name = absl::GetFlag(FLAGS_name);
  // /metrics on the host the gRPC server listens on.
  options.metrics_listen = rpc::MetricsListenAddress(
      ListenHost(options.listen), absl::GetFlag(FLAGS_metrics_port));
  options.checkpoint_interval =
      absl::Seconds(absl::GetFlag(FLAGS_checkpoint_seconds));
  options.max_message_bytes = absl::GetFlag(FLAGS_max_message_mb) << 20;
  ReplayTablesOptions& tables = options.tables;
  tables.data_dir = absl::GetFlag(FLAGS_data_dir);
  tables.default_capacity = absl::GetFlag(FLAGS_default_replay_size);
  tables.max_rate_wait =
      absl::Milliseconds(absl::GetFlag(FLAGS_rate_limit_wait_ms));
  ASSIGN_OR_RETURN(tables.table.sampler,
                   ParseSampler(absl::GetFlag(FLAGS_sampler)));
  tables.table.priority_exponent = absl::GetFlag(FLAGS_priority_exponent);
  const int64_t max_table_mib = absl::GetFlag(FLAGS_max_table_mib);
  if (max_table_mib < 0 || max_table_mib > (int64_t{1} << 30)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--max-table-mib: must be in [0, 2^30] (0: no limit), got ",
        max_table_mib));
  }
  tables.table.max_bytes = max_table_mib << 20;
  const int64_t max_total_mib = absl::GetFlag(FLAGS_max_total_mib);
  if (max_total_mib < 0 || max_total_mib > (int64_t{1} << 30)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--max-total-mib: must be in [0, 2^30] (0: no limit), got ",
        max_total_mib));
  }
  tables.max_total_bytes = max_total_mib << 20;
  tables.max_unassigned_tables = absl::GetFlag(FLAGS_max_unassigned_tables);
  if (tables.max_unassigned_tables < 0 || tables.max_unassigned_tables > 1024) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--max-unassigned-tables: must be in [0, 1024], got ",
        tables.max_unassigned_tables));
  }
  const double retention_hours = absl::GetFlag(FLAGS_table_retention_hours);
  if (!(retention_hours >= 0 && retention_hours <= 24 * 3650)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--table-retention-hours: must be in [0, 87600] (0: for ever), got ",
        retention_hours));
  }
  tables.retention = absl::Seconds(retention_hours * 3600);
  tables.table.seed = absl::GetFlag(FLAGS_seed);
  tables.table.limiter = {
      .min_positions = absl::GetFlag(FLAGS_min_positions),
      .samples_per_insert = absl::GetFlag(FLAGS_samples_per_insert),
      .slack = absl::GetFlag(FLAGS_rate_limit_slack)};
  if (tables.data_dir.empty()) {
    return absl::InvalidArgumentError("--data-dir is required");
  }
  if (options.job_capacity < 1 || options.job_capacity > 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat("--jobs: must be in 1..1024, got ", options.job_capacity));
  }
  if (tables.default_capacity < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--default-replay-size: must be >= 1, got ", tables.default_capacity));
  }
  if (absl::GetFlag(FLAGS_checkpoint_seconds) < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--checkpoint-seconds: must be >= 1, got ",
                     absl::GetFlag(FLAGS_checkpoint_seconds)));
  }
  const int mb = absl::GetFlag(FLAGS_max_message_mb);
  if (mb < 1 || mb > 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max-message-mb: must be in 1..1024, got ", mb));
  }
  if (!(tables.table.limiter.samples_per_insert >= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--samples-per-insert: must be >= 0, got ",
                     tables.table.limiter.samples_per_insert));
  }
  return options;
}

absl::Status CheckFlags() { return OptionsFromFlags().status(); }

absl::StatusOr<rpc::StopService> Start() {
  ASSIGN_OR_RETURN(ReplayServerOptions options, OptionsFromFlags());
  const std::string listen = options.listen;
  ASSIGN_OR_RETURN(std::unique_ptr<ReplayServer> server,
                   ReplayServer::Start(std::move(options)));
  if (const std::string path = absl::GetFlag(FLAGS_address_file);
      !path.empty()) {
    RETURN_IF_ERROR(WriteAddressFile(path, listen, server->port()));
  }
  return [server = std::move(server)] { server->Shutdown(); };
}

}  // namespace
}  // namespace mmapzero::replay

int main(int argc, char** argv) {
  return mmapzero::rpc::RunServiceMain(argc, argv, "replay", kUsage,
                                       &mmapzero::replay::CheckFlags,
                                       &mmapzero::replay::Start);
}
