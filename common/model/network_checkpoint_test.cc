// In-memory parameter archives ("torch-archive-v1", what ParameterService
// carries): a round trip gives identical outputs, another network size is
// refused with the field named, and bytes that are no archive are DataLoss.
#include "common/model/compute_threads.h"
#include "common/model/network_checkpoint.h"

#include <torch/torch.h>

#include <string>

#include "common/model/networks.h"
#include "common/model/small_network.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::model {
namespace {

using ::testing::HasSubstr;

MuZeroNetwork MakeNetwork(const NetworkConfig& config, uint64_t seed) {
  model::SetComputeThreads(1);
  torch::manual_seed(seed);
  absl::StatusOr<MuZeroNetwork> network =
      CreateNetwork(config, kSmallObservationShape, torch::kCPU);
  EXPECT_TRUE(network.ok()) << network.status();
  return *network;
}

TEST(NetworkParametersTest, RoundTripGivesIdenticalOutputs) {
  MuZeroNetwork saved = MakeNetwork(SmallNetworkConfig(), 1);
  absl::StatusOr<std::string> bytes = SerializeNetworkParameters(saved);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_GT(bytes->size(), 1000u);

  MuZeroNetwork loaded = MakeNetwork(SmallNetworkConfig(), 2);
  const torch::Tensor occupancy = torch::rand(
      {2, kSmallObservationShape.time_bins, kSmallObservationShape.byte_bins});
  const torch::Tensor vector =
      torch::rand({2, kSmallObservationShape.vector_size});
  const NetworkOutput expected = saved->InitialInference(occupancy, vector);
  ASSERT_FALSE(torch::equal(loaded->InitialInference(occupancy, vector).hidden,
                            expected.hidden));
  const absl::Status status = LoadNetworkParameters(*bytes, loaded);
  ASSERT_TRUE(status.ok()) << status;
  const NetworkOutput actual = loaded->InitialInference(occupancy, vector);
  EXPECT_TRUE(torch::equal(actual.hidden, expected.hidden));
  EXPECT_TRUE(torch::equal(actual.value_logits, expected.value_logits));
  EXPECT_TRUE(torch::equal(actual.policy_logits, expected.policy_logits));
  EXPECT_EQ(std::string(kNetworkParametersFormat), "torch-archive-v1");
}

TEST(NetworkParametersTest, OtherSizesNameTheField) {
  NetworkConfig small = SmallNetworkConfig();
  small.set_mlp_hidden(32);
  absl::StatusOr<std::string> bytes =
      SerializeNetworkParameters(MakeNetwork(small, 1));
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  MuZeroNetwork network = MakeNetwork(SmallNetworkConfig(), 1);
  const absl::Status status = LoadNetworkParameters(*bytes, network);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("torch-archive-v1"));
  EXPECT_THAT(status.message(), HasSubstr("mlp_hidden is 32"));
}

TEST(NetworkParametersTest, GarbageBytesAreDataLoss) {
  MuZeroNetwork network = MakeNetwork(SmallNetworkConfig(), 1);
  const torch::Tensor before = network->parameters()[0].clone();
  for (const std::string& garbage :
       {std::string(), std::string("not an archive"),
        std::string(4096, '\x5a')}) {
    const absl::Status status = LoadNetworkParameters(garbage, network);
    EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
    EXPECT_THAT(status.message(), HasSubstr("not a parameter archive"));
  }
  // A truncated archive too, and nothing was changed.
  absl::StatusOr<std::string> bytes =
      SerializeNetworkParameters(MakeNetwork(SmallNetworkConfig(), 3));
  ASSERT_TRUE(bytes.ok());
  const absl::Status truncated =
      LoadNetworkParameters(bytes->substr(0, bytes->size() / 2), network);
  EXPECT_FALSE(truncated.ok());
  EXPECT_TRUE(torch::equal(network->parameters()[0], before));
}

}  // namespace
}  // namespace mmapzero::model
