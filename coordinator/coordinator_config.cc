#include "coordinator/coordinator_config.h"

#include "absl/strings/str_cat.h"
#include "common/base/address_file.h"
#include "common/base/status_macros.h"
#include "common/metrics/metrics_endpoint.h"

namespace mmapzero::coordinator {
namespace {

absl::Status InRange(const char* flag, int64_t value, int64_t low, int64_t high,
                     const char* note = "") {
  if (value >= low && value <= high) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      flag, ": must be ", low, " to ", high, note, ", got ", value));
}

constexpr int64_t kDay = int64_t{24} * 3600 * 1000;  // ms

}  // namespace

CoordinatorConfig WithDefaults(CoordinatorConfig given) {
  CoordinatorConfig config;
  config.set_listen("127.0.0.1:7070");
  config.set_metrics_port(0);
  config.set_heartbeat_interval_ms(2000);
  config.set_lease_ttl_ms(10000);
  config.set_max_running_jobs(0);
  config.set_heuristic_budget_ms(10000);
  config.set_tick_interval_ms(1000);
  config.set_max_seed_solves(2);
  config.set_lease_rotation_ms(60000);
  config.set_max_active_jobs_per_identity(0);
  config.set_max_stored_bytes_per_identity(0);
  config.set_finished_job_retention_ms(0);
  config.set_max_finished_jobs(0);
  config.MergeFrom(given);
  return config;
}

absl::StatusOr<CoordinatorServiceSettings> CoordinatorSettingsFromConfig(
    const CoordinatorConfig& given) {
  const CoordinatorConfig config = WithDefaults(given);
  if (config.data_dir().empty()) {
    return absl::InvalidArgumentError("--data-dir is required");
  }
  RETURN_IF_ERROR(
      InRange("--metrics-port", config.metrics_port(), 0, 65535, " (0: off)"));
  RETURN_IF_ERROR(InRange("--heartbeat-interval-ms",
                          config.heartbeat_interval_ms(), 1, kDay));
  RETURN_IF_ERROR(InRange("--lease-ttl-ms", config.lease_ttl_ms(),
                          config.heartbeat_interval_ms() + 1, kDay,
                          " (more than the heartbeat interval)"));
  RETURN_IF_ERROR(InRange("--max-running-jobs", config.max_running_jobs(), 0,
                          1 << 20, " (0: no limit)"));
  RETURN_IF_ERROR(
      InRange("--heuristic-budget-ms", config.heuristic_budget_ms(), 1, kDay));
  RETURN_IF_ERROR(
      InRange("--tick-interval-ms", config.tick_interval_ms(), 1, 60000));
  RETURN_IF_ERROR(InRange("--lease-rotation-ms", config.lease_rotation_ms(), -1,
                          kDay, " (-1: never)"));
  RETURN_IF_ERROR(
      InRange("--max-seed-solves", config.max_seed_solves(), 1, 1024));
  RETURN_IF_ERROR(InRange("--max-active-jobs-per-identity",
                          config.max_active_jobs_per_identity(), 0, 1 << 20,
                          " (0: no limit)"));
  RETURN_IF_ERROR(InRange("--max-stored-bytes-per-identity",
                          config.max_stored_bytes_per_identity(), 0,
                          int64_t{1} << 50, " (0: no limit)"));
  RETURN_IF_ERROR(InRange("--finished-job-retention-ms",
                          config.finished_job_retention_ms(), 0, 3650 * kDay,
                          " (0: kept for ever)"));
  RETURN_IF_ERROR(InRange("--max-finished-jobs", config.max_finished_jobs(), 0,
                          1 << 24, " (0: no limit)"));
  CoordinatorServiceSettings settings;
  settings.address_file = config.address_file();
  CoordinatorServerOptions& options = settings.server;
  options.listen = config.listen();
  // /metrics on the host the gRPC server listens on.
  options.metrics_listen =
      MetricsListenAddress(ListenHost(options.listen), config.metrics_port());
  options.tick_interval = absl::Milliseconds(config.tick_interval_ms());
  CoordinatorOptions& c = options.coordinator;
  c.data_dir = config.data_dir();
  c.heartbeat_interval = absl::Milliseconds(config.heartbeat_interval_ms());
  c.lease_ttl = absl::Milliseconds(config.lease_ttl_ms());
  c.max_running_jobs = config.max_running_jobs();
  c.lease_rotation = config.lease_rotation_ms() < 0
                         ? absl::ZeroDuration()
                         : absl::Milliseconds(config.lease_rotation_ms());
  c.heuristic_budget = absl::Milliseconds(config.heuristic_budget_ms());
  c.max_seed_solves = config.max_seed_solves();
  c.max_active_jobs_per_identity = config.max_active_jobs_per_identity();
  c.max_stored_bytes_per_identity = config.max_stored_bytes_per_identity();
  c.finished_job_retention =
      absl::Milliseconds(config.finished_job_retention_ms());
  c.max_finished_jobs = config.max_finished_jobs();
  return settings;
}

}  // namespace mmapzero::coordinator
