// A service's config: the file, the flags given over it, the flags this
// service has no setting for, bad values named; and the shared messages'
// fields each read or refused.
#include "common/service/service_config.h"

#include <cstdio>
#include <fstream>
#include <string>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "common/service/config_field_coverage.h"
#include "common/service/service_flags.h"
#include "common/service/transport_security_config.h"
#include "common/service/worker_identity.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/service_config.pb.h"

namespace mmapzero::service {
namespace {

using ::testing::HasSubstr;

void GiveFlag(const std::string& name, const std::string& value) {
  absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
  ASSERT_NE(flag, nullptr) << name;
  std::string error;
  ASSERT_TRUE(flag->ParseFrom(value, &error)) << error;
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(ServiceConfigTest, AGivenFlagWinsOverTheFileAndTheRestOfTheFileStays) {
  absl::FlagSaver saver;
  absl::SetFlag(
      &FLAGS_config,
      WriteTemp("identity.json", R"({"coordinator": "a:1", "capacity": 3})"));
  GiveFlag("coordinator", "b:2");
  GiveFlag("metrics_port", "0");  // an explicit 0 is a value
  WorkerIdentityConfig config;
  ASSERT_TRUE(ReadServiceConfig(&config).ok());
  EXPECT_EQ(config.coordinator(), "b:2");
  EXPECT_EQ(config.capacity(), 3);
  EXPECT_TRUE(config.has_metrics_port());
  EXPECT_EQ(config.metrics_port(), 0);
  EXPECT_FALSE(config.has_name());  // the service's default fills it
}

TEST(ServiceConfigTest, ASharedFlagThisServiceHasNoSettingForIsRefused) {
  absl::FlagSaver saver;
  GiveFlag("seed", "7");
  TransportSecurityConfig config;
  const absl::Status status = ReadServiceConfig(&config);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("--seed"));
}

TEST(ServiceConfigTest, AFileThatDoesNotParseIsNamedWithItsField) {
  absl::FlagSaver saver;
  const std::string path =
      WriteTemp("bad.json", R"({"coordinator": "a:1", "capacityy": 3})");
  absl::SetFlag(&FLAGS_config, path);
  WorkerIdentityConfig config;
  const absl::Status status = ReadServiceConfig(&config);
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(path));
  EXPECT_THAT(std::string(status.message()), HasSubstr("capacityy"));
  absl::SetFlag(&FLAGS_config, ::testing::TempDir() + "/missing.json");
  EXPECT_THAT(std::string(ReadServiceConfig(&config).message()),
              HasSubstr("missing.json"));
}

TEST(ServiceConfigTest, ABadValueNamesTheFlagAndTheValue) {
  const std::vector<ConfigLeaf> leaves =
      ConfigLeaves(*WorkerIdentityConfig::descriptor());
  const auto capacity =
      std::find_if(leaves.begin(), leaves.end(), [](const ConfigLeaf& leaf) {
        return leaf.field()->name() == "capacity";
      });
  ASSERT_NE(capacity, leaves.end());
  WorkerIdentityConfig config;
  const absl::Status status = SetConfigLeaf(*capacity, "three", &config);
  EXPECT_THAT(std::string(status.message()), HasSubstr("--capacity"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("'three'"));
}

TEST(ServiceConfigTest, LeavesOpenNestedMessages) {
  std::vector<std::string> names;
  for (const ConfigLeaf& leaf :
       ConfigLeaves(*ActorServiceConfig::descriptor())) {
    names.push_back(leaf.field()->name());
  }
  EXPECT_THAT(names, ::testing::IsSupersetOf(
                         {"coordinator", "tls_ca", "torch_threads", "seed"}));
}

TransportSecurityConfig SecurityAsGiven(TransportSecurityConfig given) {
  return given;
}
absl::StatusOr<security::TransportSecurityFiles> SecurityFilesOf(
    const TransportSecurityConfig& config) {
  return TransportSecurityFilesFromConfig(config);
}

TEST(ServiceConfigTest, EveryTransportSecurityFieldIsRead) {
  ExpectEveryFieldReadOrRefused<TransportSecurityConfig,
                                security::TransportSecurityFiles>(
      TransportSecurityConfig(), &SecurityAsGiven, &SecurityFilesOf, {});
}

WorkerIdentityConfig IdentityDefaults(WorkerIdentityConfig given) {
  WorkerIdentityConfig config;
  config.set_capacity(1);
  config.set_metrics_port(9094);
  config.MergeFrom(given);
  return config;
}
absl::StatusOr<WorkerIdentity> IdentityOf(const WorkerIdentityConfig& config) {
  return WorkerIdentityFromConfig(IdentityDefaults(config), "actor", "",
                                  CoordinatorIs::kRequired);
}

TEST(ServiceConfigTest, EveryWorkerIdentityFieldIsReadOrRefused) {
  WorkerIdentityConfig baseline;
  baseline.set_coordinator("127.0.0.1:7070");
  ExpectEveryFieldReadOrRefused<WorkerIdentityConfig, WorkerIdentity>(
      baseline, &IdentityDefaults, &IdentityOf, {});
}

TEST(ServiceConfigTest, WorkerIdentityNamesWhatIsMissingOrOutOfRange) {
  WorkerIdentityConfig config = IdentityDefaults({});
  EXPECT_THAT(std::string(IdentityOf(config).status().message()),
              HasSubstr("--coordinator"));
  config.set_coordinator("c:1");
  config.set_capacity(0);
  EXPECT_THAT(std::string(IdentityOf(config).status().message()),
              HasSubstr("--capacity"));
  config.set_capacity(2);
  config.set_metrics_host("0.0.0.0");
  const absl::StatusOr<WorkerIdentity> identity = IdentityOf(config);
  ASSERT_TRUE(identity.ok()) << identity.status();
  EXPECT_EQ(identity->metrics_listen, "0.0.0.0:9094");
  EXPECT_FALSE(identity->name.empty());  // the host's
}

}  // namespace
}  // namespace mmapzero::service
