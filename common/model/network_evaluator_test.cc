// Tests of the search::Evaluator adapter over the LibTorch networks.
#include "common/model/compute_threads.h"
#include "common/model/network_evaluator.h"
#include "common/model/small_network.h"

#include <torch/torch.h>

#include <random>
#include <vector>

#include "common/model/support_scaling.h"
#include "gtest/gtest.h"

namespace mmapzero::model {
namespace {

std::vector<features::Observation> RandomObservations(int count,
                                                      unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::vector<features::Observation> observations(count);
  for (features::Observation& observation : observations) {
    observation.occupancy.resize(kSmallObservationShape.time_bins * kSmallObservationShape.byte_bins);
    observation.vector.resize(kSmallObservationShape.vector_size);
    for (float& x : observation.occupancy) x = unit(rng);
    for (float& x : observation.vector) x = 2 * unit(rng) - 1;
  }
  return observations;
}

std::vector<const features::Observation*> Pointers(
    const std::vector<features::Observation>& observations) {
  std::vector<const features::Observation*> pointers;
  for (const auto& observation : observations) pointers.push_back(&observation);
  return pointers;
}

// Random (non-zero) weights on the heads, so that values and rewards are not
// all 0 as they are at initialisation.
MuZeroNetwork MakeNetwork() {
  model::SetComputeThreads(1);
  torch::manual_seed(1);
  MuZeroNetwork network(SmallNetworkConfig(), kSmallObservationShape);
  torch::NoGradGuard no_grad;
  for (torch::Tensor& parameter : network->parameters()) {
    if (parameter.abs().sum().item<float>() == 0) {
      parameter.normal_(0, 0.3);
    }
  }
  return network;
}

std::vector<float> Row(const torch::Tensor& tensor, int64_t i) {
  const torch::Tensor row = tensor[i].contiguous();
  return {row.data_ptr<float>(), row.data_ptr<float>() + row.numel()};
}

TEST(NetworkEvaluatorTest, DecodedValueEqualsSupportDecodingOfLogits) {
  MuZeroNetwork network = MakeNetwork();
  NetworkEvaluator evaluator(network);
  const std::vector<features::Observation> observations =
      RandomObservations(4, 7);
  std::vector<search::Inference> out;
  evaluator.InitialInference(Pointers(observations), &out);
  ASSERT_EQ(out.size(), 4u);

  torch::NoGradGuard no_grad;
  torch::Tensor occupancy = torch::empty({4, 32, 32});
  torch::Tensor vector = torch::empty({4, 200});
  for (int i = 0; i < 4; ++i) {
    occupancy[i].copy_(torch::tensor(observations[i].occupancy).view({32, 32}));
    vector[i].copy_(torch::tensor(observations[i].vector));
  }
  const NetworkOutput expected = network->InitialInference(occupancy, vector);
  for (int i = 0; i < 4; ++i) {
    const double value = SupportToScalar(Row(expected.value_logits, i));
    EXPECT_NEAR(out[i].value, value, 1e-4 * (1 + std::abs(value)));
    EXPECT_NE(out[i].value, 0.0f);
    EXPECT_EQ(out[i].reward, 0.0f);
    EXPECT_EQ(out[i].hidden, Row(expected.hidden, i));
    for (int a = 0; a < 3; ++a) {
      EXPECT_FLOAT_EQ(out[i].policy_logits[a],
                      expected.policy_logits[i][a].item<float>());
    }
  }

  // One recurrent step from those hidden states.
  std::vector<const std::vector<float>*> hidden;
  for (const search::Inference& inference : out) {
    hidden.push_back(&inference.hidden);
  }
  const std::vector<int> actions = {0, 1, 2, 0};
  std::vector<search::Inference> next;
  evaluator.RecurrentInference(hidden, actions, &next);
  ASSERT_EQ(next.size(), 4u);
  const NetworkOutput expected_next = network->RecurrentInference(
      expected.hidden, torch::tensor({0, 1, 2, 0}, torch::kLong));
  for (int i = 0; i < 4; ++i) {
    const double reward = SupportToScalar(Row(expected_next.reward_logits, i));
    const double value = SupportToScalar(Row(expected_next.value_logits, i));
    EXPECT_NEAR(next[i].reward, reward, 1e-4 * (1 + std::abs(reward)));
    EXPECT_NEAR(next[i].value, value, 1e-4 * (1 + std::abs(value)));
    EXPECT_NE(next[i].reward, 0.0f);
  }
}

TEST(NetworkEvaluatorTest, BatchOfOneAndBatchOfEightAgree) {
  NetworkEvaluator evaluator(MakeNetwork());
  const std::vector<features::Observation> observations =
      RandomObservations(8, 11);
  std::vector<search::Inference> batched;
  evaluator.InitialInference(Pointers(observations), &batched);
  std::vector<const std::vector<float>*> hidden;
  for (const search::Inference& inference : batched) {
    hidden.push_back(&inference.hidden);
  }
  const std::vector<int> actions = {0, 1, 2, 0, 1, 2, 0, 1};
  std::vector<search::Inference> batched_next;
  evaluator.RecurrentInference(hidden, actions, &batched_next);

  for (int i = 0; i < 8; ++i) {
    const features::Observation* one[] = {&observations[i]};
    std::vector<search::Inference> single;
    evaluator.InitialInference(one, &single);
    ASSERT_EQ(single.size(), 1u);
    EXPECT_NEAR(single[0].value, batched[i].value, 1e-4);
    for (int a = 0; a < 3; ++a) {
      EXPECT_NEAR(single[0].policy_logits[a], batched[i].policy_logits[a],
                  1e-5);
    }
    for (int j = 0; j < 64; ++j) {
      EXPECT_NEAR(single[0].hidden[j], batched[i].hidden[j], 1e-5);
    }
    const std::vector<float>* one_hidden[] = {&batched[i].hidden};
    const int one_action[] = {actions[i]};
    std::vector<search::Inference> single_next;
    evaluator.RecurrentInference(one_hidden, one_action, &single_next);
    EXPECT_NEAR(single_next[0].reward, batched_next[i].reward, 1e-4);
    EXPECT_NEAR(single_next[0].value, batched_next[i].value, 1e-4);
  }
}

TEST(NetworkEvaluatorTest, EmptyBatchGivesEmptyOutput) {
  NetworkEvaluator evaluator(MakeNetwork());
  std::vector<search::Inference> out(3);
  evaluator.InitialInference({}, &out);
  EXPECT_TRUE(out.empty());
  out.resize(2);
  evaluator.RecurrentInference({}, {}, &out);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace mmapzero::model
