// mmapzero-learner's config: every field read or refused.
#include "learner/learner_service_config.h"

#include "common/service/config_field_coverage.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::learner {
namespace {

LearnerServiceConfig Baseline() {
  LearnerServiceConfig config;
  config.mutable_worker()->set_coordinator("127.0.0.1:7070");
  config.set_data_dir("/var/lib/mmapzero");
  return config;
}

TEST(LearnerServiceConfigTest, EveryFieldIsReadOrRefused) {
  service::ExpectEveryFieldReadOrRefused<LearnerServiceConfig,
                                         LearnerServiceSettings>(
      Baseline(), &WithDefaults, &LearnerSettingsFromConfig);
}

TEST(LearnerServiceConfigTest, ZeroTorchThreadsMeansLibTorchsDefault) {
  LearnerServiceConfig config = Baseline();
  config.set_torch_threads(0);
  const absl::StatusOr<LearnerServiceSettings> settings =
      LearnerSettingsFromConfig(config);
  ASSERT_TRUE(settings.ok()) << settings.status();
  EXPECT_EQ(settings->torch_threads, 0);
  config.set_torch_threads(-1);
  EXPECT_THAT(std::string(LearnerSettingsFromConfig(config).status().message()),
              ::testing::HasSubstr("--torch-threads"));
}

}  // namespace
}  // namespace mmapzero::learner
