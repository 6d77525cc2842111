// mmapzero-reanalyse's config: every field read or refused.
#include "reanalyse/reanalyse_service_config.h"

#include "common/service/config_field_coverage.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::reanalyse {
namespace {

ReanalyseServiceConfig Baseline() {
  ReanalyseServiceConfig config;
  config.mutable_worker()->set_coordinator("127.0.0.1:7070");
  return config;
}

TEST(ReanalyseServiceConfigTest, EveryFieldIsReadOrRefused) {
  service::ExpectEveryFieldReadOrRefused<ReanalyseServiceConfig,
                                         ReanalyseServiceSettings>(
      Baseline(), &WithDefaults, &ReanalyseSettingsFromConfig);
}

TEST(ReanalyseServiceConfigTest, ZeroTorchThreadsMeansLibTorchsDefault) {
  ReanalyseServiceConfig config = Baseline();
  config.set_torch_threads(0);
  const absl::StatusOr<ReanalyseServiceSettings> settings =
      ReanalyseSettingsFromConfig(config);
  ASSERT_TRUE(settings.ok()) << settings.status();
  EXPECT_EQ(settings->torch_threads, 0);
  config.set_torch_threads(-1);
  EXPECT_THAT(
      std::string(ReanalyseSettingsFromConfig(config).status().message()),
      ::testing::HasSubstr("--torch-threads"));
}

}  // namespace
}  // namespace mmapzero::reanalyse
