// The learner on small hand-made replays: targets reach the loss as computed
// by hand, the loss falls, and a checkpoint resumes the exact same run.
#include "common/training/learner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/agent/replay_buffer.h"
#include "common/agent/targets.h"
#include "common/model/compute_threads.h"
#include "common/model/muzero_loss.h"
#include "common/model/networks.h"

namespace mmapzero::training {
namespace {

constexpr model::ObservationShape kShape{8, 8, 16};

// The cpu preset's network sizes (features shrunk to keep tests fast).
NetworkConfig CpuLikeNetwork() {
  NetworkConfig c;
  c.set_hidden_size(64);
  c.set_resnet_channels(16);
  c.set_resnet_blocks(1);
  c.set_mlp_hidden(64);
  c.set_value_support_size(50);
  c.set_reward_support_size(50);
  return c;
}

model::MuZeroNetwork MakeNetwork(uint64_t seed) {
  model::SetComputeThreads(1);
  torch::manual_seed(seed);
  auto network = model::CreateNetwork(CpuLikeNetwork(), kShape, torch::kCPU);
  EXPECT_TRUE(network.ok()) << network.status();
  return *network;
}

// Trajectory `g` of `length` steps, learnable: the vector's first entry
// says which action the "search" preferred (the policy target, also
// played), Copy earns 1 and the others 0, and the root value is the
// undiscounted return to go.
agent::Trajectory Synthetic(int g, int length) {
  agent::Trajectory t;
  std::vector<float> rewards(length);
  for (int i = 0; i < length; ++i) {
    agent::TrajectoryStep s;
    const int preferred = (g * 7 + i * 3) % 3;
    features::Observation o;
    o.occupancy.assign(kShape.time_bins * kShape.byte_bins, 0);
    for (int c = 0; c < i * 6; ++c) o.occupancy[c] = 1;
    o.vector.assign(kShape.vector_size, 0);
    o.vector[0] = static_cast<float>(preferred);
    o.vector[1] = static_cast<float>(i) / length;
    o.vector[2 + g % 8] = 1;
    s.observation = agent::Compact(o);
    s.buffer = i;
    s.action = static_cast<uint8_t>(preferred);
    s.legal_mask = 7;
    s.policy[preferred] = 1;
    s.reward = preferred == 0 ? 1.0f : 0.0f;
    rewards[i] = s.reward;
    t.steps.push_back(s);
  }
  float to_go = 0;
  for (int i = length - 1; i >= 0; --i) {
    to_go += rewards[i];
    t.steps[i].root_value = to_go;
  }
  return t;
}

void Fill(agent::ReplayBuffer* replay, int trajectories, int length) {
  for (int g = 0; g < trajectories; ++g) replay->Insert(Synthetic(g, length));
}

TrainingConfig SmallTraining() {
  TrainingConfig t;
  t.set_batch_size(16);
  t.set_unroll_steps(3);
  t.set_td_steps(4);
  t.set_learning_rate(3e-3);
  t.set_weight_decay(1e-4);
  t.set_replay_size(100);
  return t;
}

TEST(MuZeroLossTest, StackedTargetsMatchHandComputedOnes) {
  // Rewards 1..4, root values 10..40, gamma 0.9, n 2, K 2, position 1:
  // values 37.1, 6.6, 4; rewards 0, 2, 3 (agent/targets_test.cc).
  agent::Trajectory t;
  for (int i = 0; i < 4; ++i) {
    agent::TrajectoryStep s = Synthetic(0, 1).steps[0];
    s.reward = i + 1;
    s.root_value = 10 * (i + 1);
    s.action = static_cast<uint8_t>(i % 3);
    t.steps.push_back(s);
  }
  const agent::PositionTargets targets =
      agent::MakeTargets(t, 1, {/*unroll_steps=*/2, /*td_steps=*/2, 0.9});
  const model::TrainingBatch batch =
      model::StackBatch({&t.steps[1]}, {targets}, kShape, torch::kCPU);
  const torch::Tensor values = batch.value_targets[0];
  EXPECT_NEAR(values[0].item<float>(), 37.1f, 1e-4);
  EXPECT_NEAR(values[1].item<float>(), 6.6f, 1e-5);
  EXPECT_NEAR(values[2].item<float>(), 4.0f, 1e-6);
  EXPECT_EQ(batch.reward_targets[0][0].item<float>(), 0);
  EXPECT_EQ(batch.reward_targets[0][1].item<float>(), 2);
  EXPECT_EQ(batch.reward_targets[0][2].item<float>(), 3);
  EXPECT_EQ(batch.actions[0][0].item<int64_t>(), 1);
  EXPECT_EQ(batch.actions[0][1].item<int64_t>(), 2);
  EXPECT_EQ(batch.policy_weights.sum().item<float>(), 3);
  EXPECT_EQ(batch.occupancy.sizes(),
            (std::vector<int64_t>{1, 1, kShape.time_bins, kShape.byte_bins}));

  model::MuZeroNetwork network = MakeNetwork(1);
  const model::LossParts loss = model::MuZeroLoss(network, batch);
  EXPECT_NEAR(loss.total.item<double>(), loss.value + loss.reward + loss.policy,
              1e-4);
  EXPECT_GT(loss.value, 0);
  EXPECT_GT(loss.reward, 0);

  // Weighted (TrainingConfig.value_loss_weight, reward_loss_weight): the
  // total weighs the parts, the parts stay as they were.
  const model::LossParts weighted =
      model::MuZeroLoss(network, batch, {.value = 0.5, .reward = 0.25});
  EXPECT_NEAR(weighted.total.item<double>(),
              0.5 * loss.value + 0.25 * loss.reward + loss.policy, 1e-4);
  EXPECT_NEAR(weighted.value, loss.value, 1e-6);
  EXPECT_NEAR(weighted.policy, loss.policy, 1e-6);
}

// Self-imitation: a demonstration's policy is a target only where its value
// target beats the network's value (0 for the fresh network: zero heads).
TEST(MuZeroLossTest, DemonstrationPolicyOnlyWhereItBeatsTheValue) {
  // A one-step game with td 1: the value target is the step's reward.
  auto with_reward = [](float reward, bool demonstration) {
    agent::Trajectory t = Synthetic(0, 1);
    t.steps[0].reward = reward;
    t.steps[0].policy = {1, 0, 0};
    t.demonstration = demonstration;
    const agent::PositionTargets targets =
        agent::MakeTargets(t, 0, {/*unroll_steps=*/1, /*td_steps=*/1, 1.0});
    const model::TrainingBatch batch =
        model::StackBatch({&t.steps[0]}, {targets}, kShape, torch::kCPU);
    model::MuZeroNetwork network = MakeNetwork(1);
    return model::MuZeroLoss(network, batch).policy;
  };
  EXPECT_GT(with_reward(5, /*demonstration=*/true), 0);    // 5 > 0: imitate
  EXPECT_EQ(with_reward(-5, /*demonstration=*/true), 0);   // worse: ignored
  EXPECT_GT(with_reward(-5, /*demonstration=*/false), 0);  // self-play: always
}

TEST(MuZeroLossTest, ScaleGradientKeepsValueAndScalesGradient) {
  const torch::Tensor x = torch::ones({3}, torch::requires_grad());
  const torch::Tensor y = model::ScaleGradient(x * 2, 0.5);
  EXPECT_TRUE(torch::equal(y.detach(), torch::full({3}, 2.0f)));
  y.sum().backward();
  EXPECT_TRUE(torch::allclose(x.grad(), torch::ones({3})));
}

TEST(LearnerTest, RejectsBadConfigAndEmptyBatch) {
  TrainingConfig bad = SmallTraining();
  bad.set_td_steps(0);
  EXPECT_EQ(Learner::Create(bad, 0.9, MakeNetwork(1)).status().code(),
            absl::StatusCode::kInvalidArgument);
  bad = SmallTraining();
  bad.set_demonstration_fraction(1.5);
  EXPECT_EQ(Learner::Create(bad, 0.9, MakeNetwork(1)).status().code(),
            absl::StatusCode::kInvalidArgument);
  bad = SmallTraining();
  bad.set_reward_loss_weight(-0.5);
  EXPECT_EQ(Learner::Create(bad, 0.9, MakeNetwork(1)).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto learner = Learner::Create(SmallTraining(), 0.9, MakeNetwork(1));
  ASSERT_TRUE(learner.ok());
  EXPECT_EQ((*learner)->Step({}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// 20 trajectories of 10 steps; the average loss of the last 10 of 100 steps
// must be under half the first step's.
TEST(LearnerTest, ReducesTheLossOnAFixedReplay) {
  agent::ReplayBuffer replay(100, 7);
  Fill(&replay, 20, 10);
  auto learner = Learner::Create(SmallTraining(), 0.997, MakeNetwork(3));
  ASSERT_TRUE(learner.ok());
  double first = 0, last = 0;
  for (int i = 0; i < 100; ++i) {
    auto stats = (*learner)->Step(replay.Sample(SmallTraining().batch_size()));
    ASSERT_TRUE(stats.ok()) << stats.status();
    if (i == 0) first = stats->total;
    if (i >= 90) last += stats->total / 10;
  }
  EXPECT_EQ((*learner)->step(), 100);
  std::printf("loss: first %.4f, last-10 mean %.4f, factor %.3f\n", first, last,
              last / first);
  EXPECT_LT(last, 0.5 * first);
}

TEST(LearnerTest, CheckpointResumesTheSameRun) {
  const std::string dir = ::testing::TempDir() + "/learner_checkpoint";
  agent::ReplayBuffer replay(100, 5);
  Fill(&replay, 6, 10);
  const int batch = SmallTraining().batch_size();
  auto a = Learner::Create(SmallTraining(), 0.997, MakeNetwork(11));
  ASSERT_TRUE(a.ok());
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE((*a)->Step(replay.Sample(batch)).ok());
  ASSERT_TRUE((*a)->Save(dir, &replay).ok());
  ASSERT_TRUE((*a)->Save(dir, &replay).ok());  // over an existing checkpoint
  std::vector<double> losses_a;
  for (int i = 0; i < 2; ++i) {
    losses_a.push_back((*a)->Step(replay.Sample(batch))->total);
  }

  agent::ReplayBuffer other_replay(100, /*seed=*/99);
  auto b = Learner::Create(SmallTraining(), 0.997, MakeNetwork(12));
  ASSERT_TRUE(b.ok());
  const absl::Status loaded = (*b)->Load(dir, &other_replay);
  ASSERT_TRUE(loaded.ok()) << loaded;
  EXPECT_EQ((*b)->step(), 3);
  EXPECT_EQ(other_replay.size(), 6);
  std::vector<double> losses_b;
  for (int i = 0; i < 2; ++i) {
    losses_b.push_back((*b)->Step(other_replay.Sample(batch))->total);
  }
  EXPECT_EQ(losses_a, losses_b);
  EXPECT_EQ((*b)->step(), 5);
  EXPECT_EQ((*b)->Load(dir + "-missing").code(), absl::StatusCode::kNotFound);
}

// Positions given from outside train like sampled ones: a window of steps
// [i, i + K + n] (what the replay service sends) has the same targets, so
// the same loss, as position i of the whole trajectory; bad positions are
// refused with the position named and change nothing.
TEST(LearnerTest, StepOnGivenPositionsMatchesWindowsOfWholeGames) {
  const TrainingConfig training = SmallTraining();  // K 3, n 4
  auto whole = Learner::Create(training, 0.997, MakeNetwork(21));
  auto windowed = Learner::Create(training, 0.997, MakeNetwork(21));
  ASSERT_TRUE(whole.ok() && windowed.ok());
  std::vector<agent::SampledPosition> full, windows;
  for (int g = 0; g < 4; ++g) {
    auto game = std::make_shared<agent::Trajectory>(Synthetic(g, 10));
    const int start = 2 * g;  // g = 3: clipped at the end of the game
    auto window = std::make_shared<agent::Trajectory>();
    const int end = std::min<int>(10, start + 3 + 4 + 1);
    window->steps.assign(game->steps.begin() + start,
                         game->steps.begin() + end);
    for (size_t i = 1; i < window->steps.size(); ++i) {
      window->steps[i].observation = {};  // only the first carries one
    }
    full.push_back({g, start, game});
    windows.push_back({g, 0, window});
  }
  for (int i = 0; i < 2; ++i) {
    auto a = (*whole)->Step(full);
    auto b = (*windowed)->Step(windows);
    ASSERT_TRUE(a.ok() && b.ok()) << a.status() << b.status();
    EXPECT_NEAR(a->total, b->total, 1e-5);
    EXPECT_EQ(b->step, i + 1);
  }

  std::vector<agent::SampledPosition> bad = windows;
  bad[2].step = 9;
  absl::StatusOr<LearnerStats> refused = (*windowed)->Step(bad);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.status().message()),
              ::testing::HasSubstr("batch[2]"));
  bad = windows;
  bad[1].step = 1;  // no observation there
  EXPECT_EQ((*windowed)->Step(bad).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*windowed)->Step({}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*windowed)->step(), 2);

  // Actions are checked where the targets read them (the position and K
  // after it), not over a whole game.
  auto game = std::make_shared<agent::Trajectory>(*full[0].trajectory);
  game->steps[2 + 3].action = 7;  // position 2, K 3: read
  refused = (*whole)->Step({{0, 2, game}});
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(refused.status().message()),
              ::testing::HasSubstr("step 5: action 7 is not 0..2"));
  EXPECT_TRUE((*whole)->Step({{0, 1, game}}).ok());  // steps 1..4 only
}

// Two positions of one synthetic game: a batch given from outside.
std::vector<agent::SampledPosition> TwoPositions() {
  auto game = std::make_shared<agent::Trajectory>(Synthetic(1, 10));
  return {{0, 0, game}, {0, 5, game}};
}

// A learner saved without a replay checkpoints and resumes without
// replay.bin.
TEST(LearnerTest, CheckpointWithoutReplayResumesTheStep) {
  const std::string dir = ::testing::TempDir() + "/learner_no_replay";
  const std::vector<agent::SampledPosition> batch = TwoPositions();
  auto a = Learner::Create(SmallTraining(), 0.997, MakeNetwork(5));
  ASSERT_TRUE(a.ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*a)->Step(batch).ok());
  ASSERT_TRUE((*a)->Save(dir).ok());
  const double next_a = (*a)->Step(batch)->total;
  auto b = Learner::Create(SmallTraining(), 0.997, MakeNetwork(6));
  ASSERT_TRUE(b.ok());
  const absl::Status loaded = (*b)->Load(dir);
  ASSERT_TRUE(loaded.ok()) << loaded;
  EXPECT_EQ((*b)->step(), 3);
  EXPECT_EQ((*b)->Step(batch)->total, next_a);
}

// A torn newest checkpoint (here its optimizer file cut short, as a crash
// mid-write on a disk without the fsyncs would leave it) is caught by the
// checksums in learner.txt; Load falls back to the previous checkpoint and
// says so, sets the torn one aside (never over an earlier one) and puts the
// good one back in place, so the saves after it keep it as the previous one
// instead of deleting it. With both damaged, the error names both and
// nothing is moved.
TEST(LearnerTest, DamagedNewestCheckpointFallsBackToThePreviousOne) {
  namespace fs = std::filesystem;
  const std::string dir = ::testing::TempDir() + "/learner_fallback";
  fs::remove_all(dir);
  fs::remove_all(dir + ".old");
  fs::remove_all(dir + ".damaged-1");
  fs::remove_all(dir + ".damaged-2");
  const auto tear = [](const std::string& file) {
    fs::resize_file(file, fs::file_size(file) / 2);
  };
  const std::vector<agent::SampledPosition> batch = TwoPositions();
  auto a = Learner::Create(SmallTraining(), 0.997, MakeNetwork(5));
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE((*a)->Step(batch).ok());
  ASSERT_TRUE((*a)->Save(dir).ok());  // step 1: becomes the previous one
  ASSERT_TRUE((*a)->Step(batch).ok());
  ASSERT_TRUE((*a)->Save(dir).ok());  // step 2: the newest
  tear(dir + "/optimizer.pt");

  auto b = Learner::Create(SmallTraining(), 0.997, MakeNetwork(6));
  ASSERT_TRUE(b.ok());
  std::string note;
  absl::Status loaded = (*b)->Load(dir, nullptr, &note);
  ASSERT_TRUE(loaded.ok()) << loaded;
  EXPECT_EQ((*b)->step(), 1);
  EXPECT_THAT(note, ::testing::HasSubstr("previous checkpoint"));
  EXPECT_THAT(note, ::testing::HasSubstr("optimizer.pt"));
  EXPECT_THAT(note, ::testing::HasSubstr("checksum"));
  EXPECT_THAT(note, ::testing::HasSubstr(dir + ".damaged-1"));
  EXPECT_TRUE(fs::exists(dir + ".damaged-1/optimizer.pt"));
  EXPECT_FALSE(fs::exists(dir + ".old"));

  // The next save keeps the good step-1 checkpoint as the previous one; a
  // second torn newest falls back to it again and is set aside beside the
  // first.
  ASSERT_TRUE((*b)->Step(batch).ok());
  ASSERT_TRUE((*b)->Save(dir).ok());
  tear(dir + "/optimizer.pt");
  auto c = Learner::Create(SmallTraining(), 0.997, MakeNetwork(7));
  ASSERT_TRUE(c.ok());
  loaded = (*c)->Load(dir, nullptr, &note);
  ASSERT_TRUE(loaded.ok()) << loaded;
  EXPECT_EQ((*c)->step(), 1);
  EXPECT_THAT(note, ::testing::HasSubstr(dir + ".damaged-2"));
  EXPECT_TRUE(fs::exists(dir + ".damaged-1/optimizer.pt"));

  // Both damaged: refused, naming both, and both stay where they are.
  ASSERT_TRUE((*c)->Step(batch).ok());
  ASSERT_TRUE((*c)->Save(dir).ok());
  tear(dir + "/optimizer.pt");
  fs::resize_file(dir + ".old/network.pt", 10);
  const absl::Status both = (*c)->Load(dir, nullptr, &note);
  EXPECT_EQ(both.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(both.message(), ::testing::HasSubstr("optimizer.pt"));
  EXPECT_THAT(both.message(), ::testing::HasSubstr(".old/network.pt"));
  EXPECT_TRUE(fs::exists(dir + "/learner.txt"));
  EXPECT_TRUE(fs::exists(dir + ".old/learner.txt"));
  EXPECT_FALSE(fs::exists(dir + ".damaged-3"));
}

}  // namespace
}  // namespace mmapzero::training
