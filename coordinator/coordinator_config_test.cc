// The coordinator's config: defaults for what it leaves out, fields
// carried into the server options, bad values named, every field read or
// refused.
#include "coordinator/coordinator_config.h"

#include "common/service/config_field_coverage.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::coordinator {
namespace {

using ::testing::HasSubstr;

TEST(CoordinatorConfigTest, EmptyConfigGetsTheDefaults) {
  const CoordinatorConfig config = WithDefaults(CoordinatorConfig());
  EXPECT_EQ(config.listen(), "127.0.0.1:7070");
  EXPECT_EQ(config.heartbeat_interval_ms(), 2000);
  EXPECT_EQ(config.lease_ttl_ms(), 10000);
  EXPECT_EQ(config.heuristic_budget_ms(), 10000);
  EXPECT_EQ(config.tick_interval_ms(), 1000);
  EXPECT_EQ(config.max_seed_solves(), 2);
  EXPECT_EQ(config.lease_rotation_ms(), 60000);
  EXPECT_EQ(config.metrics_port(), 0);  // off
}

TEST(CoordinatorConfigTest, AnExplicitZeroIsAValueNotTheDefault) {
  CoordinatorConfig config;
  config.set_data_dir("/data");
  config.set_heartbeat_interval_ms(0);
  EXPECT_EQ(WithDefaults(config).heartbeat_interval_ms(), 0);
  const absl::Status status = CoordinatorSettingsFromConfig(config).status();
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("--heartbeat-interval-ms"));
  config.clear_heartbeat_interval_ms();
  EXPECT_TRUE(CoordinatorSettingsFromConfig(config).ok());
}

TEST(CoordinatorConfigTest, LeaseRotationMinusOneTurnsItOff) {
  CoordinatorConfig config;
  config.set_data_dir("/data");
  EXPECT_EQ(
      CoordinatorSettingsFromConfig(config)->server.coordinator.lease_rotation,
      absl::Seconds(60));
  config.set_lease_rotation_ms(-1);
  EXPECT_EQ(
      CoordinatorSettingsFromConfig(config)->server.coordinator.lease_rotation,
      absl::ZeroDuration());
  config.set_lease_rotation_ms(-2);
  const absl::Status status = CoordinatorSettingsFromConfig(config).status();
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("--lease-rotation-ms"));
}

TEST(CoordinatorConfigTest, FieldsBecomeServerOptions) {
  CoordinatorConfig config;
  config.set_listen("127.0.0.1:9000");
  config.set_data_dir("/data");
  config.set_metrics_port(9090);
  config.set_lease_ttl_ms(30000);
  config.set_max_running_jobs(4);
  config.set_max_seed_solves(3);
  const auto options = CoordinatorSettingsFromConfig(config);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->server.listen, "127.0.0.1:9000");
  EXPECT_EQ(options->server.metrics_listen, "127.0.0.1:9090");
  EXPECT_EQ(options->server.coordinator.data_dir, "/data");
  EXPECT_EQ(options->server.coordinator.lease_ttl, absl::Seconds(30));
  EXPECT_EQ(options->server.coordinator.heartbeat_interval, absl::Seconds(2));
  EXPECT_EQ(options->server.coordinator.max_running_jobs, 4);
  EXPECT_EQ(options->server.coordinator.max_seed_solves, 3);
  EXPECT_EQ(options->server.coordinator.max_active_jobs_per_identity, 0);
  EXPECT_EQ(options->server.coordinator.max_stored_bytes_per_identity, 0);
  config.set_max_active_jobs_per_identity(5);
  config.set_max_stored_bytes_per_identity(int64_t{1} << 30);
  const auto limited = CoordinatorSettingsFromConfig(config);
  ASSERT_TRUE(limited.ok()) << limited.status();
  EXPECT_EQ(limited->server.coordinator.max_active_jobs_per_identity, 5);
  EXPECT_EQ(limited->server.coordinator.max_stored_bytes_per_identity,
            int64_t{1} << 30);
}

TEST(CoordinatorConfigTest, NegativeFieldIsNamed) {
  CoordinatorConfig config;
  config.set_data_dir("/data");
  config.set_lease_ttl_ms(-5);
  const absl::Status status = CoordinatorSettingsFromConfig(config).status();
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("--lease-ttl-ms"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("-5"));
  config.clear_lease_ttl_ms();
  config.set_max_seed_solves(5000);
  const absl::Status slots = CoordinatorSettingsFromConfig(config).status();
  EXPECT_TRUE(absl::IsInvalidArgument(slots)) << slots;
  EXPECT_THAT(std::string(slots.message()), HasSubstr("--max-seed-solves"));
  EXPECT_THAT(std::string(slots.message()), HasSubstr("5000"));
  config.clear_max_seed_solves();
  config.set_max_stored_bytes_per_identity(-1);
  const absl::Status bytes = CoordinatorSettingsFromConfig(config).status();
  EXPECT_TRUE(absl::IsInvalidArgument(bytes)) << bytes;
  EXPECT_THAT(std::string(bytes.message()),
              HasSubstr("--max-stored-bytes-per-identity"));
}

TEST(CoordinatorConfigTest, EveryFieldIsReadOrRefused) {
  CoordinatorConfig baseline;
  baseline.set_data_dir("/data");
  service::ExpectEveryFieldReadOrRefused<CoordinatorConfig,
                                         CoordinatorServiceSettings>(
      baseline, &WithDefaults, &CoordinatorSettingsFromConfig);
}

}  // namespace
}  // namespace mmapzero::coordinator
