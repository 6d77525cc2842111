// mmapzero-actor's config: every field read or refused.
#include "actor/actor_service_config.h"

#include "common/service/config_field_coverage.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::actor {
namespace {

ActorServiceConfig Baseline() {
  ActorServiceConfig config;
  config.mutable_worker()->set_coordinator("127.0.0.1:7070");
  return config;
}

TEST(ActorServiceConfigTest, EveryFieldIsReadOrRefused) {
  service::ExpectEveryFieldReadOrRefused<ActorServiceConfig,
                                         ActorServiceSettings>(
      Baseline(), &WithDefaults, &ActorSettingsFromConfig);
}

TEST(ActorServiceConfigTest, ZeroTorchThreadsMeansLibTorchsDefault) {
  ActorServiceConfig config = Baseline();
  config.set_torch_threads(0);
  const absl::StatusOr<ActorServiceSettings> settings =
      ActorSettingsFromConfig(config);
  ASSERT_TRUE(settings.ok()) << settings.status();
  EXPECT_EQ(settings->torch_threads, 0);
  config.set_torch_threads(-1);
  EXPECT_THAT(std::string(ActorSettingsFromConfig(config).status().message()),
              ::testing::HasSubstr("--torch-threads"));
}

}  // namespace
}  // namespace mmapzero::actor
