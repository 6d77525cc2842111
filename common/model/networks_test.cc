// Tests of the LibTorch networks and their checkpoints, at the cpu-like sizes
// (32x32 occupancy grid, vector of 200, hidden state of 64).
#include "common/model/compute_threads.h"
#include "common/model/networks.h"
#include "common/model/small_network.h"

#include <torch/torch.h>

#include <filesystem>
#include <string>
#include <vector>

#include "common/model/network_checkpoint.h"
#include "common/model/support_scaling.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::model {
namespace {

using ::testing::HasSubstr;

class NetworksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model::SetComputeThreads(1);
    torch::manual_seed(0);
  }

  MuZeroNetwork MakeNetwork(const NetworkConfig& config = SmallNetworkConfig()) {
    absl::StatusOr<MuZeroNetwork> network =
        CreateNetwork(config, kSmallObservationShape, torch::kCPU);
    EXPECT_TRUE(network.ok()) << network.status();
    return *network;
  }

  static torch::Tensor Occupancy(int batch) {
    return torch::rand({batch, kSmallObservationShape.time_bins, kSmallObservationShape.byte_bins});
  }
  static torch::Tensor Vector(int batch) {
    return torch::rand({batch, kSmallObservationShape.vector_size}) * 2 - 1;
  }
};

TEST_F(NetworksTest, InitialAndRecurrentShapesForBatchOfFour) {
  MuZeroNetwork network = MakeNetwork();
  const NetworkOutput initial =
      network->InitialInference(Occupancy(4), Vector(4));
  EXPECT_EQ(initial.hidden.sizes(), (std::vector<int64_t>{4, 64}));
  EXPECT_EQ(initial.policy_logits.sizes(), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(initial.value_logits.sizes(), (std::vector<int64_t>{4, 101}));
  EXPECT_EQ(initial.reward_logits.sizes(), (std::vector<int64_t>{4, 21}));
  EXPECT_EQ(initial.value.sizes(), (std::vector<int64_t>{4}));
  EXPECT_TRUE(torch::equal(initial.reward, torch::zeros({4})));

  const NetworkOutput next = network->RecurrentInference(
      initial.hidden, torch::tensor({0, 1, 2, 1}, torch::kLong));
  EXPECT_EQ(next.hidden.sizes(), (std::vector<int64_t>{4, 64}));
  EXPECT_EQ(next.reward_logits.sizes(), (std::vector<int64_t>{4, 21}));
  EXPECT_EQ(next.reward.sizes(), (std::vector<int64_t>{4}));
  EXPECT_EQ(next.value_logits.sizes(), (std::vector<int64_t>{4, 101}));
}

TEST_F(NetworksTest, HiddenStatesAreMinMaxNormalisedPerSample) {
  MuZeroNetwork network = MakeNetwork();
  const NetworkOutput initial =
      network->InitialInference(Occupancy(4), Vector(4));
  const NetworkOutput next = network->RecurrentInference(
      initial.hidden, torch::tensor({2, 2, 0, 1}, torch::kLong));
  for (const torch::Tensor& hidden : {initial.hidden, next.hidden}) {
    const torch::Tensor min = std::get<0>(hidden.min(1));
    const torch::Tensor max = std::get<0>(hidden.max(1));
    EXPECT_TRUE(torch::allclose(min, torch::zeros({4}), 0, 1e-6));
    EXPECT_TRUE(torch::allclose(max, torch::ones({4}), 0, 1e-5));
  }
}

TEST_F(NetworksTest, TensorSupportMatchesScalarSupport) {
  const std::vector<float> values = {-250.0f, -3.5f, 0.0f, 0.4f, 9.0f, 1e4f};
  const torch::Tensor targets =
      ScalarToSupportTensor(torch::tensor(values), 10);
  for (size_t i = 0; i < values.size(); ++i) {
    const std::vector<float> expected = ScalarToSupport(values[i], 10);
    for (int j = 0; j < 21; ++j) {
      EXPECT_NEAR(targets[i][j].item<float>(), expected[j], 1e-5)
          << values[i] << " bin " << j;
    }
  }
  const torch::Tensor logits = torch::randn({5, 21}) * 3;
  const torch::Tensor decoded = SupportToScalarTensor(logits);
  for (int i = 0; i < 5; ++i) {
    const torch::Tensor row = logits[i].contiguous();
    const double expected = SupportToScalar(
        absl::MakeConstSpan(row.data_ptr<float>(), row.numel()));
    EXPECT_NEAR(decoded[i].item<float>(), expected,
                1e-4 * (1 + std::abs(expected)));
  }
}

TEST_F(NetworksTest, CreateNetworkRejectsNonPositiveSizes) {
  NetworkConfig config = SmallNetworkConfig();
  config.set_hidden_size(0);
  const absl::StatusOr<MuZeroNetwork> network =
      CreateNetwork(config, kSmallObservationShape, torch::kCPU);
  EXPECT_EQ(network.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(network.status().message(), HasSubstr("hidden_size"));
}

// Cross-entropy against soft targets minus the targets' entropy (the KL
// divergence), so that a perfect fit is 0 whatever the two-hot split.
torch::Tensor SoftCrossEntropyExcess(const torch::Tensor& logits,
                                     const torch::Tensor& targets) {
  const torch::Tensor cross = -(targets * logits.log_softmax(1)).sum(1);
  const torch::Tensor entropy = -torch::xlogy(targets, targets).sum(1);
  return (cross - entropy).mean();
}

TEST_F(NetworksTest, OverfitsOneFixedBatch) {
  constexpr int kBatch = 16;
  constexpr int kSteps = 300;
  // The summed policy / value / reward loss must fall by this factor.
  constexpr double kRequiredFactor = 5.0;
  const NetworkConfig config = SmallNetworkConfig();
  MuZeroNetwork network = MakeNetwork();
  const torch::Tensor occupancy = Occupancy(kBatch);
  const torch::Tensor vector = Vector(kBatch);
  const torch::Tensor actions = torch::randint(0, 3, {kBatch}, torch::kLong);
  const torch::Tensor policy_target =
      torch::one_hot(torch::randint(0, 3, {kBatch}, torch::kLong), 3)
          .to(torch::kFloat);
  const torch::Tensor value_target = ScalarToSupportTensor(
      torch::rand({kBatch}) * 200 - 100, config.value_support_size());
  const torch::Tensor reward_target = ScalarToSupportTensor(
      torch::rand({kBatch}) * 20 - 10, config.reward_support_size());

  torch::optim::Adam optimizer(network->parameters(),
                               torch::optim::AdamOptions(1e-3));
  auto loss_fn = [&] {
    const NetworkOutput initial = network->InitialInference(occupancy, vector);
    const NetworkOutput next =
        network->RecurrentInference(initial.hidden, actions);
    return SoftCrossEntropyExcess(initial.policy_logits, policy_target) +
           SoftCrossEntropyExcess(initial.value_logits, value_target) +
           SoftCrossEntropyExcess(next.reward_logits, reward_target);
  };
  const double initial_loss = loss_fn().item<double>();
  double final_loss = initial_loss;
  for (int step = 0; step < kSteps; ++step) {
    optimizer.zero_grad();
    torch::Tensor loss = loss_fn();
    loss.backward();
    optimizer.step();
    final_loss = loss.item<double>();
  }
  final_loss = loss_fn().item<double>();
  std::printf("overfit: loss %.4f -> %.4f (factor %.1f) in %d Adam steps\n",
              initial_loss, final_loss, initial_loss / final_loss, kSteps);
  EXPECT_LT(final_loss * kRequiredFactor, initial_loss);
}

TEST_F(NetworksTest, CheckpointRoundTripGivesIdenticalOutputs) {
  const std::string path = ::testing::TempDir() + "/networks_test.ckpt";
  MuZeroNetwork saved = MakeNetwork();
  ASSERT_TRUE(SaveCheckpoint(saved, path).ok());
  const torch::Tensor occupancy = Occupancy(3);
  const torch::Tensor vector = Vector(3);
  const NetworkOutput expected = saved->InitialInference(occupancy, vector);

  MuZeroNetwork loaded = MakeNetwork();  // different random initialisation
  ASSERT_FALSE(torch::equal(loaded->InitialInference(occupancy, vector).hidden,
                            expected.hidden));
  const absl::Status status = LoadCheckpoint(path, loaded);
  ASSERT_TRUE(status.ok()) << status;
  const NetworkOutput actual = loaded->InitialInference(occupancy, vector);
  EXPECT_TRUE(torch::equal(actual.hidden, expected.hidden));
  EXPECT_TRUE(torch::equal(actual.value_logits, expected.value_logits));
  EXPECT_TRUE(torch::equal(actual.policy_logits, expected.policy_logits));

  absl::StatusOr<MuZeroNetwork> rebuilt =
      LoadNetworkFromCheckpoint(path, torch::kCPU);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  const torch::Tensor actions = torch::tensor({0, 1, 2}, torch::kLong);
  EXPECT_TRUE(torch::equal(
      (*rebuilt)->RecurrentInference(expected.hidden, actions).reward_logits,
      saved->RecurrentInference(expected.hidden, actions).reward_logits));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST_F(NetworksTest, CheckpointLoadNamesFileAndMismatchingField) {
  const std::string path = ::testing::TempDir() + "/networks_test_small.ckpt";
  NetworkConfig small = SmallNetworkConfig();
  small.set_mlp_hidden(32);
  ASSERT_TRUE(SaveCheckpoint(MakeNetwork(small), path).ok());
  MuZeroNetwork network = MakeNetwork();
  const absl::Status status = LoadCheckpoint(path, network);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr(path));
  EXPECT_THAT(status.message(), HasSubstr("mlp_hidden is 32"));

  const absl::StatusOr<CheckpointHeader> header = ReadCheckpointHeader(path);
  ASSERT_TRUE(header.ok()) << header.status();
  EXPECT_EQ(header->config.mlp_hidden(), 32);
  EXPECT_EQ(header->shape.vector_size, 200);
}

TEST_F(NetworksTest, MlpTrunkHasNoConvolutionAndTheSameOutputs) {
  NetworkConfig config = SmallNetworkConfig();
  config.set_trunk(NetworkConfig::MLP);
  MuZeroNetwork network = MakeNetwork(config);
  for (const auto& item : network->named_parameters()) {
    EXPECT_EQ(item.key().find("stem"), std::string::npos) << item.key();
    EXPECT_EQ(item.key().find("blocks"), std::string::npos) << item.key();
  }
  const NetworkOutput initial =
      network->InitialInference(Occupancy(4), Vector(4));
  EXPECT_EQ(initial.hidden.sizes(), (std::vector<int64_t>{4, 64}));
  EXPECT_EQ(initial.policy_logits.sizes(), (std::vector<int64_t>{4, 3}));
  // The occupancy map is an input: changing it changes the hidden state.
  const torch::Tensor vector = Vector(2);
  const torch::Tensor a =
      network->InitialInference(torch::zeros({2, 32, 32}), vector).hidden;
  const torch::Tensor b =
      network->InitialInference(torch::ones({2, 32, 32}), vector).hidden;
  EXPECT_FALSE(torch::allclose(a, b));
}

TEST_F(NetworksTest, CheckpointOfAnotherTrunkIsRefusedNamingIt) {
  const std::string path = ::testing::TempDir() + "/networks_test_mlp.ckpt";
  NetworkConfig mlp = SmallNetworkConfig();
  mlp.set_trunk(NetworkConfig::MLP);
  ASSERT_TRUE(SaveCheckpoint(MakeNetwork(mlp), path).ok());
  MuZeroNetwork conv = MakeNetwork();
  const absl::Status status = LoadCheckpoint(path, conv);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("trunk is 1"));
  MuZeroNetwork same = MakeNetwork(mlp);
  EXPECT_TRUE(LoadCheckpoint(path, same).ok());
}

TEST_F(NetworksTest, CheckpointLoadOfMissingFileFails) {
  MuZeroNetwork network = MakeNetwork();
  const std::string path = ::testing::TempDir() + "/no_such.ckpt";
  const absl::Status status = LoadCheckpoint(path, network);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr(path));
}

}  // namespace
}  // namespace mmapzero::model
