// Reanalyse writes fresh root values / policies for exactly the steps it
// searched, searches only the stored legal actions, and leaves everything
// else.
#include "common/training/reanalyser.h"

#include <gtest/gtest.h>

#include <memory>

#include "common/agent/replay_buffer.h"
#include "common/features/config_presets.h"
#include "common/model/compute_threads.h"
#include "common/model/network_evaluator.h"
#include "common/model/networks.h"
#include "common/search/batched_search.h"
#include "common/training/learner.h"
#include "common/training/replay_batch_source.h"

namespace mmapzero::training {
namespace {

constexpr model::ObservationShape kShape{8, 8, 16};

model::MuZeroNetwork SmallNetwork() {
  model::SetComputeThreads(1);
  torch::manual_seed(4);
  NetworkConfig c;
  c.set_hidden_size(32);
  c.set_resnet_channels(8);
  c.set_resnet_blocks(1);
  c.set_mlp_hidden(32);
  c.set_value_support_size(10);
  c.set_reward_support_size(10);
  auto network = model::CreateNetwork(c, kShape, torch::kCPU);
  EXPECT_TRUE(network.ok()) << network.status();
  return *network;
}

// Stored targets no network would produce: value 123, policy (0.2, 0.3, 0.5).
agent::Trajectory Stored(int length) {
  agent::Trajectory t;
  for (int i = 0; i < length; ++i) {
    agent::TrajectoryStep s;
    features::Observation o;
    o.occupancy.assign(kShape.time_bins * kShape.byte_bins, 0.25f * (i % 4));
    o.vector.assign(kShape.vector_size, 0.1f * i);
    s.observation = agent::Compact(o);
    s.action = static_cast<uint8_t>(i % 2);
    s.legal_mask = i == 3 ? 3 : 7;  // step 3: Drop illegal
    s.reward = static_cast<float>(i);
    s.root_value = 123;
    s.policy = {0.2f, 0.3f, 0.5f};
    t.steps.push_back(s);
  }
  return t;
}

SearchConfig FewSimulations() {
  SearchConfig search = features::CpuPreset().search();
  search.set_simulations(6);
  return search;
}

TEST(ReanalyserTest, RefreshChangesOnlyTheSearchedTargets) {
  agent::ReplayBuffer replay(10, 1);
  const int64_t id = replay.Insert(Stored(6));
  auto reanalyser =
      Reanalyser::Create(FewSimulations(), SmallNetwork(), &replay);
  ASSERT_TRUE(reanalyser.ok()) << reanalyser.status();
  const auto before = replay.Get(id);
  ASSERT_TRUE((*reanalyser)->Refresh(id, 2, 5, /*seed=*/1).ok());
  const auto after = replay.Get(id);
  EXPECT_EQ((*reanalyser)->refreshed_steps(), 3);
  EXPECT_EQ(replay.counters().updated, 3);
  for (int i = 0; i < 6; ++i) {
    const agent::TrajectoryStep& a = before->steps[i];
    const agent::TrajectoryStep& b = after->steps[i];
    EXPECT_EQ(a.reward, b.reward);
    EXPECT_EQ(a.action, b.action);
    EXPECT_EQ(a.legal_mask, b.legal_mask);
    EXPECT_EQ(a.observation.occupancy, b.observation.occupancy);
    EXPECT_EQ(a.observation.vector, b.observation.vector);
    const bool searched = i >= 2 && i < 5;
    EXPECT_EQ(b.root_value != 123, searched) << i;
    EXPECT_EQ(b.policy != a.policy, searched) << i;
    if (searched) {
      EXPECT_NEAR(b.policy[0] + b.policy[1] + b.policy[2], 1, 1e-5);
    }
  }
  EXPECT_EQ(after->steps[3].policy[2], 0);  // Drop was illegal there
  EXPECT_EQ((*reanalyser)->Refresh(id + 1, 0, 1, 1).code(),
            absl::StatusCode::kNotFound);
}

// Step 4's stored mask makes Copy illegal: its refreshed policy is exactly
// 0 there, and its value is that of a search (same network, seed and
// observation) that never visited Copy, unlike a search over all three
// (whose first simulation always takes Copy, the lowest-index tie).
// Step 1's mask allows NoCopy only: the policy is all on it.
TEST(ReanalyserTest, IllegalStoredActionsAreNeverSearched) {
  agent::ReplayBuffer replay(10, 1);
  agent::Trajectory stored = Stored(6);
  stored.steps[1].legal_mask = 0b010;
  stored.steps[4].legal_mask = 0b110;
  const int64_t id = replay.Insert(stored);
  auto reanalyser =
      Reanalyser::Create(FewSimulations(), SmallNetwork(), &replay);
  ASSERT_TRUE(reanalyser.ok()) << reanalyser.status();
  ASSERT_TRUE((*reanalyser)->Refresh(id, 4, 5, /*seed=*/5).ok());
  ASSERT_TRUE((*reanalyser)->Refresh(id, 1, 2, /*seed=*/5).ok());
  const auto after = replay.Get(id);
  const agent::TrajectoryStep& step = after->steps[4];
  EXPECT_EQ(step.policy[0], 0.0f);
  EXPECT_NEAR(step.policy[1] + step.policy[2], 1, 1e-6);
  EXPECT_EQ(after->steps[1].policy, (std::array<float, 3>{0, 1, 0}));

  SearchConfig config = FewSimulations();
  config.set_mode(SearchConfig::LEARNED_MODEL);
  config.set_root_exploration_fraction(0);
  model::NetworkEvaluator evaluator(SmallNetwork());  // the same weights
  search::BatchedSearch search(config, &evaluator, nullptr);
  features::Observation observation;
  agent::Expand(step.observation, &observation);
  const std::vector<const features::Observation*> roots = {&observation};
  const std::vector<uint64_t> seeds = {5};
  std::vector<search::SearchResult> masked, all_legal;
  ASSERT_TRUE(search
                  .RunFromObservations(roots, std::vector<uint8_t>{0b110},
                                       seeds, 0.0, &masked)
                  .ok());
  ASSERT_TRUE(search
                  .RunFromObservations(roots, std::vector<uint8_t>{0b111},
                                       seeds, 0.0, &all_legal)
                  .ok());
  EXPECT_EQ(masked[0].visits[0], 0);
  EXPECT_EQ(masked[0].visits[1] + masked[0].visits[2], config.simulations());
  EXPECT_EQ(step.root_value, masked[0].root_value);
  EXPECT_EQ(step.policy, masked[0].policy);
  // The old stand-in root (all legal) visits Copy, and gets another value.
  EXPECT_GT(all_legal[0].visits[0], 0);
  EXPECT_NE(step.root_value, all_legal[0].root_value);
}

// The in-process batch source re-searches the first
// round(reanalyse_fraction * batch) positions of each batch before the
// learner trains on them; an empty replay gives no batch.
TEST(ReanalyserTest, ReplayBatchSourceMixesFreshTargetsIntoItsBatches) {
  agent::ReplayBuffer replay(10, 2);
  model::MuZeroNetwork network = SmallNetwork();
  auto reanalyser = Reanalyser::Create(FewSimulations(), network, &replay);
  ASSERT_TRUE(reanalyser.ok());
  TrainingConfig training;
  training.set_batch_size(8);
  training.set_unroll_steps(2);
  training.set_td_steps(2);
  training.set_learning_rate(1e-3);
  training.set_reanalyse_fraction(0.25);
  ReplayBatchSource source(training, &replay, reanalyser->get(),
                           /*first_batch=*/0);
  EXPECT_EQ(source.Next(absl::Milliseconds(30)).status().code(),
            absl::StatusCode::kDeadlineExceeded);
  for (int g = 0; g < 3; ++g) replay.Insert(Stored(6));
  absl::StatusOr<agent::Batch> batch = source.Next(absl::Seconds(1));
  ASSERT_TRUE(batch.ok()) << batch.status();
  EXPECT_EQ(batch->size(), 8u);
  EXPECT_EQ(source.reanalysed(), 2);
  EXPECT_GT(replay.counters().updated, 0);
  auto learner = Learner::Create(training, 0.99, network);
  ASSERT_TRUE(learner.ok());
  auto stats = (*learner)->Step(*batch);
  ASSERT_TRUE(stats.ok()) << stats.status();
}

}  // namespace
}  // namespace mmapzero::training
