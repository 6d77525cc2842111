// In-memory parameter archives ("torch-archive-v1", what ParameterService
// carries): a round trip gives identical outputs, another network size is
// refused with the field named, bytes that are no archive are DataLoss, and
// archives with wrong contents (shapes, values, stored sizes) are a status,
// never an exception, and leave the network as it was.
#include "common/model/network_checkpoint.h"

#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/model/compute_threads.h"
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

// Every parameter and buffer of `network`, copied.
std::vector<torch::Tensor> Snapshot(const MuZeroNetwork& network) {
  std::vector<torch::Tensor> tensors;
  for (const torch::Tensor& tensor : network->parameters()) {
    tensors.push_back(tensor.clone());
  }
  for (const torch::Tensor& tensor : network->buffers()) {
    tensors.push_back(tensor.clone());
  }
  return tensors;
}

bool Unchanged(const MuZeroNetwork& network,
               const std::vector<torch::Tensor>& before) {
  const std::vector<torch::Tensor> now = Snapshot(network);
  if (now.size() != before.size()) return false;
  for (size_t i = 0; i < now.size(); ++i) {
    if (!torch::equal(now[i], before[i])) return false;
  }
  return true;
}

// An archive as SerializeNetworkParameters writes it: `network`'s tensors,
// then the stored sizes, here `header`'s, with `edit` applied to the
// stored sizes' tensors by name (the format's keys: "mmapzero_" + field).
std::string Archive(
    const MuZeroNetwork& network, const NetworkConfig& header_config,
    const std::map<std::string, torch::Tensor>& header_overrides = {}) {
  torch::serialize::OutputArchive archive;
  network->save(archive);
  const std::map<std::string, int64_t> fields = {
      {"hidden_size", header_config.hidden_size()},
      {"resnet_channels", header_config.resnet_channels()},
      {"resnet_blocks", header_config.resnet_blocks()},
      {"mlp_hidden", header_config.mlp_hidden()},
      {"value_support_size", header_config.value_support_size()},
      {"reward_support_size", header_config.reward_support_size()},
      {"time_bins", kSmallObservationShape.time_bins},
      {"byte_bins", kSmallObservationShape.byte_bins},
      {"vector_size", kSmallObservationShape.vector_size},
      {"trunk", header_config.trunk()},
      {"feature_hash", kSmallObservationShape.feature_hash},
      {"file_version", kNetworkFileVersion}};
  for (const auto& [name, value] : fields) {
    const auto override = header_overrides.find(name);
    if (override != header_overrides.end() && !override->second.defined()) {
      continue;  // left out
    }
    archive.write("mmapzero_" + name,
                  override != header_overrides.end()
                      ? override->second
                      : torch::tensor(value, torch::kLong),
                  /*is_buffer=*/true);
  }
  std::ostringstream bytes;
  archive.save_to(bytes);
  return bytes.str();
}

// Archives that are well-formed for LibTorch but wrong for the network (a
// peer's bug, a damaged or forged snapshot): each is refused with what is
// wrong named, without an exception, and the network is left as it was.
// (Bytes damaged below this level, in the archive's zip or TorchScript
// records, can crash LibTorch 1.13's loader itself; on the wire TLS, and on
// disk the checkpoint checksums, keep such bytes from reaching it.)
TEST(NetworkParametersTest, WrongArchivesAreRefusedAndChangeNothing) {
  const NetworkConfig small = SmallNetworkConfig();
  NetworkConfig wider = small;
  wider.set_mlp_hidden(small.mlp_hidden() * 2);
  MuZeroNetwork poisoned = MakeNetwork(small, 4);
  {
    torch::NoGradGuard no_grad;
    poisoned->parameters().back().fill_(NAN);
  }
  struct Case {
    std::string name;
    std::string bytes;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"a tensor of another shape under the right sizes",
       Archive(MakeNetwork(wider, 2), small), "has shape"},
      {"values that are not finite", Archive(poisoned, small), "not finite"},
      {"a stored size of two values",
       Archive(MakeNetwork(small, 2), small,
               {{"hidden_size", torch::tensor({1, 2}, torch::kLong)}}),
       "hidden_size is not one integer"},
      {"a stored size out of range",
       Archive(MakeNetwork(small, 2), small,
               {{"mlp_hidden", torch::tensor(int64_t{1} << 40, torch::kLong)}}),
       "mlp_hidden is 1099511627776"},
  };
  MuZeroNetwork network = MakeNetwork(small, 1);
  const std::string path = ::testing::TempDir() + "/wrong_checkpoint.pt";
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::vector<torch::Tensor> before = Snapshot(network);
    absl::Status status;
    EXPECT_NO_THROW(status = LoadNetworkParameters(c.bytes, network));
    EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
    EXPECT_THAT(status.message(), HasSubstr(c.message));
    EXPECT_TRUE(Unchanged(network, before));
    // The same bytes as a checkpoint file.
    std::ofstream(path, std::ios::binary | std::ios::trunc) << c.bytes;
    EXPECT_NO_THROW(status = LoadCheckpoint(path, network));
    EXPECT_FALSE(status.ok());
    EXPECT_TRUE(Unchanged(network, before));
  }
  // The right archive still loads.
  EXPECT_TRUE(
      LoadNetworkParameters(Archive(MakeNetwork(small, 5), small), network)
          .ok());
  EXPECT_FALSE(Unchanged(network, Snapshot(MakeNetwork(small, 1))));
}

// A network is trained on observations of one feature configuration
// (ObservationShape.feature_hash, features::FeatureHash): loaded into a
// network of another it would read every input as something else, so the
// load is refused with both hashes named; so are files of another network
// file version, version 1 (no version stored) among them.
TEST(NetworkParametersTest, AnotherFeatureHashOrFileVersionIsRefused) {
  const NetworkConfig small = SmallNetworkConfig();
  ObservationShape trained_for = kSmallObservationShape;
  trained_for.feature_hash = 12345;
  ObservationShape plays = kSmallObservationShape;
  plays.feature_hash = 67890;
  torch::manual_seed(1);
  absl::StatusOr<MuZeroNetwork> saved =
      CreateNetwork(small, trained_for, torch::kCPU);
  absl::StatusOr<MuZeroNetwork> network =
      CreateNetwork(small, plays, torch::kCPU);
  ASSERT_TRUE(saved.ok() && network.ok());
  absl::StatusOr<std::string> bytes = SerializeNetworkParameters(*saved);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  const std::vector<torch::Tensor> before = Snapshot(*network);
  absl::Status status = LoadNetworkParameters(*bytes, *network);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_THAT(status.message(), HasSubstr("feature hash 12345"));
  EXPECT_THAT(status.message(), HasSubstr("this network's is 67890"));
  EXPECT_TRUE(Unchanged(*network, before));

  // As a file: the header says what it was trained for, and a network of
  // that hash is what LoadNetworkFromCheckpoint builds.
  const std::string path = ::testing::TempDir() + "/hashed_checkpoint.pt";
  ASSERT_TRUE(SaveCheckpoint(*saved, path).ok());
  absl::StatusOr<CheckpointHeader> header = ReadCheckpointHeader(path);
  ASSERT_TRUE(header.ok()) << header.status();
  EXPECT_EQ(header->shape.feature_hash, 12345);
  status = LoadCheckpoint(path, *network);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  absl::StatusOr<MuZeroNetwork> rebuilt =
      LoadNetworkFromCheckpoint(path, torch::kCPU);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  EXPECT_EQ((*rebuilt)->shape().feature_hash, 12345);

  MuZeroNetwork plain = MakeNetwork(small, 2);
  status = LoadNetworkParameters(
      Archive(MakeNetwork(small, 3), small,
              {{"file_version", torch::Tensor()}, {"feature_hash", torch::Tensor()}}),
      plain);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_THAT(status.message(), HasSubstr("network file of version 1"));
  status = LoadNetworkParameters(
      Archive(MakeNetwork(small, 3), small,
              {{"file_version", torch::tensor(int64_t{3}, torch::kLong)}}),
      plain);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_THAT(status.message(), HasSubstr("written by a newer mmapzero"));
}

}  // namespace
}  // namespace mmapzero::model
