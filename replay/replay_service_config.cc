#include "replay/replay_service_config.h"

#include "absl/strings/str_cat.h"
#include "common/base/address_file.h"
#include "common/base/status_macros.h"
#include "common/service/worker_identity.h"

namespace mmapzero::replay {
namespace {

absl::Status InRange(const char* flag, double value, double low, double high,
                     const char* note = "") {
  if (value >= low && value <= high) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      flag, ": must be in [", low, ", ", high, "]", note, ", got ", value));
}

constexpr double kMaxMib = static_cast<double>(int64_t{1} << 30);

}  // namespace

ReplayServiceConfig WithDefaults(ReplayServiceConfig given) {
  ReplayServiceConfig config;
  WorkerIdentityConfig& worker = *config.mutable_worker();
  worker.set_capacity(64);
  worker.set_metrics_port(9091);
  config.set_listen("127.0.0.1:7071");
  config.set_checkpoint_seconds(60);
  config.set_default_replay_size(2000);
  config.set_max_table_mib(4096);
  config.set_max_total_mib(12288);
  config.set_max_unassigned_tables(4);
  config.set_table_retention_hours(24);
  config.set_sampler("uniform");
  config.set_priority_exponent(1.0);
  config.set_min_positions(1000);
  config.set_samples_per_insert(8.0);
  config.set_rate_limit_slack(4096);
  config.set_rate_limit_wait_ms(500);
  config.set_max_message_mb(64);
  config.set_seed(1);
  config.MergeFrom(given);
  return config;
}

absl::StatusOr<ReplayServiceSettings> ReplaySettingsFromConfig(
    const ReplayServiceConfig& given) {
  const ReplayServiceConfig config = WithDefaults(given);
  ReplayServiceSettings settings;
  ReplayServerOptions& server = settings.server;
  server.listen = config.listen();
  server.advertise = config.advertise();
  ASSIGN_OR_RETURN(const service::WorkerIdentity identity,
                   service::WorkerIdentityFromConfig(
                       config.worker(), "replay", ListenHost(server.listen),
                       service::CoordinatorIs::kOptional));
  server.coordinator = identity.coordinator;
  server.name = identity.name;
  server.job_capacity = identity.capacity;
  server.metrics_listen = identity.metrics_listen;
  settings.address_file = config.address_file();
  RETURN_IF_ERROR(InRange("--checkpoint-seconds", config.checkpoint_seconds(),
                          1, 86400 * 365));
  server.checkpoint_interval = absl::Seconds(config.checkpoint_seconds());
  RETURN_IF_ERROR(
      InRange("--max-message-mb", config.max_message_mb(), 1, 1024));
  server.max_message_bytes = config.max_message_mb() << 20;
  ReplayTablesOptions& tables = server.tables;
  tables.data_dir = config.data_dir();
  if (tables.data_dir.empty()) {
    return absl::InvalidArgumentError("--data-dir is required");
  }
  RETURN_IF_ERROR(InRange("--default-replay-size", config.default_replay_size(),
                          1, 1 << 30));
  tables.default_capacity = config.default_replay_size();
  RETURN_IF_ERROR(InRange("--rate-limit-wait-ms", config.rate_limit_wait_ms(),
                          0, 3600 * 1000));
  tables.max_rate_wait = absl::Milliseconds(config.rate_limit_wait_ms());
  ASSIGN_OR_RETURN(tables.table.sampler, ParseSampler(config.sampler()));
  RETURN_IF_ERROR(
      InRange("--priority-exponent", config.priority_exponent(), 0, 16));
  tables.table.priority_exponent = config.priority_exponent();
  RETURN_IF_ERROR(InRange("--max-table-mib", config.max_table_mib(), 0, kMaxMib,
                          " (0: no limit)"));
  tables.table.max_bytes = config.max_table_mib() << 20;
  RETURN_IF_ERROR(InRange("--max-total-mib", config.max_total_mib(), 0, kMaxMib,
                          " (0: no limit)"));
  tables.max_total_bytes = config.max_total_mib() << 20;
  RETURN_IF_ERROR(InRange("--max-unassigned-tables",
                          config.max_unassigned_tables(), 0, 1024));
  tables.max_unassigned_tables = config.max_unassigned_tables();
  RETURN_IF_ERROR(InRange("--table-retention-hours",
                          config.table_retention_hours(), 0, 24 * 3650,
                          " (0: for ever)"));
  tables.retention = absl::Seconds(config.table_retention_hours() * 3600);
  tables.table.seed = config.seed();
  RETURN_IF_ERROR(InRange("--min-positions", config.min_positions(), 0, 1e15));
  RETURN_IF_ERROR(InRange("--samples-per-insert", config.samples_per_insert(),
                          0, 1e6, " (0: no rate limit)"));
  RETURN_IF_ERROR(
      InRange("--rate-limit-slack", config.rate_limit_slack(), 0, 1e15));
  tables.table.limiter = {.min_positions = config.min_positions(),
                          .samples_per_insert = config.samples_per_insert(),
                          .slack = config.rate_limit_slack()};
  return settings;
}

}  // namespace mmapzero::replay
