// mmapzero-replay's config: the defaults, and every field read or refused.
#include "replay/replay_service_config.h"

#include "common/service/config_field_coverage.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::replay {
namespace {

ReplayServiceConfig Baseline() {
  ReplayServiceConfig config;
  config.set_data_dir("/var/lib/mmapzero");
  return config;
}

TEST(ReplayServiceConfigTest, DefaultsAreTheServersAndStandaloneIsAllowed) {
  const absl::StatusOr<ReplayServiceSettings> settings =
      ReplaySettingsFromConfig(WithDefaults(Baseline()));
  ASSERT_TRUE(settings.ok()) << settings.status();
  EXPECT_EQ(settings->server.listen, "127.0.0.1:7071");
  EXPECT_EQ(settings->server.metrics_listen, "127.0.0.1:9091");
  EXPECT_EQ(settings->server.coordinator, "");
  EXPECT_EQ(settings->server.job_capacity, 64);
  EXPECT_EQ(settings->server.tables.table.max_bytes, int64_t{4096} << 20);
  EXPECT_EQ(settings->server.tables.table.limiter.samples_per_insert, 8.0);
}

TEST(ReplayServiceConfigTest, EveryFieldIsReadOrRefused) {
  service::ExpectEveryFieldReadOrRefused<ReplayServiceConfig,
                                         ReplayServiceSettings>(
      Baseline(), &WithDefaults, &ReplaySettingsFromConfig);
}

TEST(ReplayServiceConfigTest, OutOfRangeValuesAreNamed) {
  ReplayServiceConfig config = WithDefaults(Baseline());
  config.set_max_table_mib(-1);
  EXPECT_THAT(std::string(ReplaySettingsFromConfig(config).status().message()),
              ::testing::HasSubstr("--max-table-mib"));
  config = WithDefaults(Baseline());
  config.clear_data_dir();
  EXPECT_THAT(std::string(ReplaySettingsFromConfig(config).status().message()),
              ::testing::HasSubstr("--data-dir"));
}

}  // namespace
}  // namespace mmapzero::replay
