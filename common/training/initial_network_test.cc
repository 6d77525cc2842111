// Which network a job starts from: unset, the shipped default where it
// fits the config and a fresh one elsewhere; "none" fresh; "default" the
// shipped one or an error saying it does not fit; a file that network or
// an error naming the field and the file.
#include "common/training/initial_network.h"

#include <torch/torch.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "common/features/config_presets.h"
#include "common/model/compute_threads.h"
#include "common/model/network_checkpoint.h"
#include "common/training/default_network.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::training {
namespace {

using ::testing::HasSubstr;

model::MuZeroNetwork Fresh(const MuZeroConfig& config) {
  model::SetComputeThreads(1);
  torch::manual_seed(3);
  absl::StatusOr<model::MuZeroNetwork> network = model::CreateNetwork(
      config.network(), model::ShapeOf(config.features()), torch::kCPU);
  EXPECT_TRUE(network.ok()) << network.status();
  return *network;
}

std::string Parameters(const model::MuZeroNetwork& network) {
  absl::StatusOr<std::string> bytes =
      model::SerializeNetworkParameters(network);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return *bytes;
}

absl::StatusOr<std::string> Start(const MuZeroConfig& config,
                                  const std::string& initial,
                                  model::MuZeroNetwork& network) {
  TrainingConfig training = config.training();
  training.set_initial_network(initial);
  return LoadInitialNetwork(training, network);
}

TEST(InitialNetworkTest, TheCpuPresetStartsFromTheShippedNetwork) {
  const MuZeroConfig cpu = features::CpuPreset();
  model::MuZeroNetwork unset = Fresh(cpu);
  const std::string fresh = Parameters(unset);
  ASSERT_EQ(Start(cpu, "", unset).value_or("error"), "default");
  EXPECT_NE(Parameters(unset), fresh);
  model::MuZeroNetwork named = Fresh(cpu);
  ASSERT_EQ(Start(cpu, "default", named).value_or("error"), "default");
  EXPECT_EQ(Parameters(named), Parameters(unset));

  model::MuZeroNetwork none = Fresh(cpu);
  ASSERT_EQ(Start(cpu, "none", none).value_or("error"), "none");
  EXPECT_EQ(Parameters(none), fresh);
}

TEST(InitialNetworkTest, AnotherConfigStartsFreshUnlessItAsksForTheDefault) {
  MuZeroConfig wider = features::CpuPreset();
  wider.mutable_network()->set_hidden_size(32);
  model::MuZeroNetwork unset = Fresh(wider);
  const std::string fresh = Parameters(unset);
  ASSERT_EQ(Start(wider, "", unset).value_or("error"), "none");
  EXPECT_EQ(Parameters(unset), fresh);

  const absl::StatusOr<std::string> refused = Start(wider, "default", unset);
  EXPECT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(),
              HasSubstr("training.initial_network: the default network"));
  EXPECT_THAT(refused.status().message(), HasSubstr("hidden_size"));
  EXPECT_EQ(Parameters(unset), fresh);

  const std::string missing = ::testing::TempDir() + "/no_network_here.pt";
  const absl::StatusOr<std::string> absent = Start(wider, missing, unset);
  EXPECT_FALSE(absent.ok());
  EXPECT_THAT(absent.status().message(),
              HasSubstr("training.initial_network: "));
  EXPECT_THAT(absent.status().message(), HasSubstr(missing));
}

// initial_policy_uniform keeps the shipped network's values but zeroes its
// policy head: every action starts equally likely, as in a fresh network.
TEST(InitialNetworkTest, APolicyUniformStartKeepsTheValuesOnly) {
  const MuZeroConfig cpu = features::CpuPreset();
  model::MuZeroNetwork shipped = Fresh(cpu);
  ASSERT_EQ(Start(cpu, "default", shipped).value_or("error"), "default");
  TrainingConfig training = cpu.training();
  training.set_initial_network("default");
  training.set_initial_policy_uniform(true);
  model::MuZeroNetwork uniform = Fresh(cpu);
  ASSERT_EQ(LoadInitialNetwork(training, uniform).value_or("error"),
            "default (policy uniform)");
  const model::ObservationShape shape = model::ShapeOf(cpu.features());
  torch::manual_seed(5);
  const torch::Tensor occupancy =
      torch::rand({4, shape.time_bins, shape.byte_bins});
  const torch::Tensor vector = torch::rand({4, shape.vector_size});
  torch::NoGradGuard no_grad;
  const model::NetworkOutput trained =
      shipped->InitialInference(occupancy, vector);
  const model::NetworkOutput started =
      uniform->InitialInference(occupancy, vector);
  EXPECT_GT(trained.policy_logits.abs().max().item<float>(), 0);
  EXPECT_EQ(started.policy_logits.abs().max().item<float>(), 0);
  EXPECT_TRUE(torch::equal(started.value_logits, trained.value_logits));

  // Nothing to make uniform in a fresh network: it stays as built.
  training.set_initial_network("none");
  model::MuZeroNetwork none = Fresh(cpu);
  const std::string fresh = Parameters(none);
  ASSERT_EQ(LoadInitialNetwork(training, none).value_or("error"), "none");
  EXPECT_EQ(Parameters(none), fresh);
}

TEST(InitialNetworkTest, AFileIsLoadedAndNamed) {
  const MuZeroConfig cpu = features::CpuPreset();
  model::MuZeroNetwork saved = Fresh(cpu);
  ASSERT_TRUE(model::LoadNetworkParameters(DefaultNetworkBytes(), saved).ok());
  const std::string path = ::testing::TempDir() + "/initial_network_file.pt";
  ASSERT_TRUE(model::SaveCheckpoint(saved, path).ok());
  model::MuZeroNetwork loaded = Fresh(cpu);
  ASSERT_EQ(Start(cpu, path, loaded).value_or("error"), path);
  EXPECT_EQ(Parameters(loaded), Parameters(saved));
}

// A coordinator's copy ("sha256:...") loads only from the bytes the job's
// learner fetched; a registered name with no such file says where such
// networks live.
TEST(InitialNetworkTest, ACoordinatorsCopyLoadsFromTheFetchedBytes) {
  const MuZeroConfig cpu = features::CpuPreset();
  const std::string copy = absl::StrCat("sha256:", std::string(64, 'a'));
  model::MuZeroNetwork network = Fresh(cpu);
  const std::string fresh = Parameters(network);
  const absl::StatusOr<std::string> unfetched = Start(cpu, copy, network);
  EXPECT_EQ(unfetched.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(Parameters(network), fresh);

  TrainingConfig training = cpu.training();
  training.set_initial_network(copy);
  ASSERT_EQ(LoadInitialNetwork(training, network, DefaultNetworkBytes())
                .value_or("error"),
            copy);
  model::MuZeroNetwork shipped = Fresh(cpu);
  ASSERT_TRUE(model::LoadNetworkParameters(DefaultNetworkBytes(), shipped).ok());
  EXPECT_EQ(Parameters(network), Parameters(shipped));
  const absl::StatusOr<std::string> damaged =
      LoadInitialNetwork(training, network, "not an archive");
  EXPECT_FALSE(damaged.ok());
  EXPECT_THAT(damaged.status().message(), HasSubstr(copy));

  const absl::StatusOr<std::string> named = Start(cpu, "family-net", network);
  EXPECT_EQ(named.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(named.status().message(), HasSubstr("mmapctl networks export"));
}

}  // namespace
}  // namespace mmapzero::training
