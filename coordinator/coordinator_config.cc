#include "coordinator/coordinator_config.h"

#include "absl/strings/str_cat.h"
#include "common/base/address_file.h"
#include "common/base/status_macros.h"
#include "common/rpc/metrics_endpoint.h"
#include "common/workload/proto_io.h"

namespace mmapzero::coordinator {
namespace {

absl::Status NonNegative(const char* field, int64_t value) {
  if (value >= 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("config field ", field, ": must be >= 0, got ", value));
}

}  // namespace

absl::StatusOr<CoordinatorConfig> LoadCoordinatorConfig(
    const std::string& path) {
  CoordinatorConfig config;
  RETURN_IF_ERROR(ReadProtoFile(path, &config));
  return config;
}

CoordinatorConfig WithDefaults(CoordinatorConfig config) {
  if (config.listen().empty()) config.set_listen("127.0.0.1:7070");
  if (config.heartbeat_interval_ms() == 0) {
    config.set_heartbeat_interval_ms(2000);
  }
  if (config.lease_ttl_ms() == 0) config.set_lease_ttl_ms(10000);
  if (config.heuristic_budget_ms() == 0) config.set_heuristic_budget_ms(10000);
  if (config.tick_interval_ms() == 0) config.set_tick_interval_ms(1000);
  if (config.max_seed_solves() == 0) config.set_max_seed_solves(2);
  if (config.lease_rotation_ms() == 0) config.set_lease_rotation_ms(60000);
  return config;
}

absl::StatusOr<CoordinatorServerOptions> ServerOptionsFromConfig(
    const CoordinatorConfig& given) {
  const CoordinatorConfig config = WithDefaults(given);
  RETURN_IF_ERROR(NonNegative("metrics_port", config.metrics_port()));
  RETURN_IF_ERROR(
      NonNegative("heartbeat_interval_ms", config.heartbeat_interval_ms()));
  RETURN_IF_ERROR(NonNegative("lease_ttl_ms", config.lease_ttl_ms()));
  RETURN_IF_ERROR(NonNegative("max_running_jobs", config.max_running_jobs()));
  RETURN_IF_ERROR(
      NonNegative("heuristic_budget_ms", config.heuristic_budget_ms()));
  RETURN_IF_ERROR(NonNegative("tick_interval_ms", config.tick_interval_ms()));
  if (config.lease_rotation_ms() < -1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "config field lease_rotation_ms: must be >= 0, or -1 for never, got ",
        config.lease_rotation_ms()));
  }
  if (config.max_seed_solves() < 1 || config.max_seed_solves() > 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat("config field max_seed_solves: must be 1 to 1024, got ",
                     config.max_seed_solves()));
  }
  if (config.metrics_port() > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("config field metrics_port: must be <= 65535, got ",
                     config.metrics_port()));
  }
  CoordinatorServerOptions options;
  options.listen = config.listen();
  if (config.metrics_port() > 0) {
    // /metrics on the host the gRPC server listens on.
    options.metrics_listen = rpc::MetricsListenAddress(
        ListenHost(options.listen), config.metrics_port());
  }
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
  return options;
}

}  // namespace mmapzero::coordinator
