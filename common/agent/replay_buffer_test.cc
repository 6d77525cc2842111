#include "common/agent/replay_buffer.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <thread>
#include <vector>

namespace mmapzero::agent {
namespace {

Trajectory OfLength(int steps, float tag) {
  Trajectory t;
  t.episode_return = tag;
  for (int i = 0; i < steps; ++i) {
    TrajectoryStep s;
    s.observation.occupancy = {static_cast<uint8_t>(i), 7};
    s.observation.vector = {tag, static_cast<float>(i)};
    s.reward = tag;
    s.root_value = static_cast<float>(i);
    s.policy = {0.5f, 0.25f, 0.25f};
    s.legal_mask = 7;
    s.buffer = i;
    t.steps.push_back(s);
  }
  return t;
}

TEST(ReplayBufferTest, EvictsOldestTrajectoriesFirst) {
  ReplayBuffer replay(/*capacity=*/2, /*seed=*/1);
  EXPECT_EQ(replay.Insert(OfLength(3, 0)), 0);
  EXPECT_EQ(replay.Insert(Trajectory()), -1);  // empty: ignored
  EXPECT_EQ(replay.Insert(OfLength(4, 1)), 1);
  EXPECT_EQ(replay.Insert(OfLength(5, 2)), 2);
  EXPECT_EQ(replay.size(), 2);
  EXPECT_EQ(replay.total_steps(), 9);
  EXPECT_EQ(replay.Get(0), nullptr);
  ASSERT_NE(replay.Get(2), nullptr);
  EXPECT_EQ(replay.Get(2)->episode_return, 2);
  EXPECT_EQ(replay.counters().inserted, 3);
}

TEST(ReplayBufferTest, SamplesUniformlyOverSteps) {
  ReplayBuffer replay(10, 3);
  replay.Insert(OfLength(1, 0));
  replay.Insert(OfLength(3, 1));
  std::map<std::pair<int64_t, int>, int> counts;
  constexpr int kDraws = 40000;
  for (const SampledPosition& p : replay.Sample(kDraws)) {
    ASSERT_LT(p.step, static_cast<int>(p.trajectory->steps.size()));
    ++counts[{p.id, p.step}];
  }
  ASSERT_EQ(counts.size(), 4u);  // every step of both
  for (const auto& [position, count] : counts) {
    EXPECT_NEAR(count, kDraws / 4, kDraws / 40);
  }
  EXPECT_EQ(replay.counters().sampled, kDraws);
}

TEST(ReplayBufferTest, ContextStepsAreNeverSampled) {
  ReplayBuffer replay(10, 3);
  Trajectory segment = OfLength(5, 0);
  segment.continues = true;
  segment.context_steps = 3;  // positions 0 and 1 only
  replay.Insert(segment);
  EXPECT_EQ(replay.total_steps(), 2);
  std::map<int, int> counts;
  for (const SampledPosition& p : replay.Sample(4000)) ++counts[p.step];
  ASSERT_EQ(counts.size(), 2u);
  EXPECT_GT(counts[0], 1800);
  EXPECT_GT(counts[1], 1800);
}

TEST(ReplayBufferTest, UpdateTargetsTouchesOnlyListedSteps) {
  ReplayBuffer replay(4, 5);
  const int64_t id = replay.Insert(OfLength(3, 1));
  const auto before = replay.Get(id);
  const StepTargets update{1, 9.5f, {0, 0, 1}};
  ASSERT_TRUE(replay.UpdateTargets(id, {&update, 1}).ok());
  const auto after = replay.Get(id);
  // The shared copy a reader holds is unchanged.
  EXPECT_EQ(before->steps[1].root_value, 1);
  EXPECT_EQ(after->steps[1].root_value, 9.5f);
  EXPECT_EQ(after->steps[1].policy[2], 1);
  EXPECT_EQ(after->steps[0].root_value, 0);
  EXPECT_EQ(after->steps[1].reward, before->steps[1].reward);
  EXPECT_EQ(after->steps[1].observation.vector,
            before->steps[1].observation.vector);
  EXPECT_EQ(replay.UpdateTargets(77, {&update, 1}).code(),
            absl::StatusCode::kNotFound);
  const StepTargets bad{3, 0, {}};
  EXPECT_EQ(replay.UpdateTargets(id, {&bad, 1}).code(),
            absl::StatusCode::kOutOfRange);
}

TEST(ReplayBufferTest, RestoredBufferSamplesTheSameSequence) {
  const std::string path = ::testing::TempDir() + "/replay_snapshot.bin";
  ReplayBuffer replay(3, 11);
  for (int i = 0; i < 5; ++i) replay.Insert(OfLength(2 + i, i));
  replay.Sample(17);
  ASSERT_TRUE(replay.Save(path).ok());
  const std::vector<SampledPosition> expected = replay.Sample(50);

  ReplayBuffer restored(3, /*seed=*/999);
  const absl::Status status = restored.Restore(path);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(restored.size(), 3);
  EXPECT_EQ(restored.counters().inserted, 5);
  EXPECT_EQ(restored.counters().sampled, 17);
  const std::vector<SampledPosition> got = restored.Sample(50);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].id, expected[i].id);
    EXPECT_EQ(got[i].step, expected[i].step);
    EXPECT_EQ(got[i].trajectory->steps[got[i].step].observation.vector,
              expected[i].trajectory->steps[expected[i].step]
                  .observation.vector);
  }
  ReplayBuffer small(2, 0);
  EXPECT_EQ(small.Restore(path).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(small.Restore(path + ".missing").code(),
            absl::StatusCode::kNotFound);
}

TEST(ReplayBufferTest, SnapshotKeepsEveryFieldOfATrajectory) {
  // Version 1 lost these flags: after a restore, context steps were sampled
  // as positions and demonstrations imitated everywhere.
  const std::string path = ::testing::TempDir() + "/replay_flags.bin";
  Trajectory t = OfLength(4, 2);
  t.demonstration = true;
  t.continues = true;
  t.context_steps = 2;
  t.drop_backups = 3;
  t.parameter_version = 12;
  t.steps[1].fast_move = true;
  for (TrajectoryStep& step : t.steps) {
    step.observation.vector.clear();  // empty vectors round-trip too
  }
  ReplayBuffer replay(2, 1);
  replay.Insert(t);
  ASSERT_TRUE(replay.Save(path).ok());
  ReplayBuffer restored(2, 1);
  const absl::Status status = restored.Restore(path);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(restored.total_steps(), 2);  // context steps are not positions
  const std::shared_ptr<const Trajectory> back = restored.Get(0);
  ASSERT_NE(back, nullptr);
  EXPECT_TRUE(back->demonstration);
  EXPECT_TRUE(back->continues);
  EXPECT_EQ(back->context_steps, 2);
  EXPECT_EQ(back->drop_backups, 3);
  EXPECT_EQ(back->parameter_version, 12);
  EXPECT_TRUE(back->steps[1].fast_move);
  EXPECT_FALSE(back->steps[0].fast_move);
  EXPECT_TRUE(back->steps[2].observation.vector.empty());
  EXPECT_EQ(back->steps[3].observation.occupancy,
            t.steps[3].observation.occupancy);
}

TEST(ReplayBufferTest, ConcurrentInsertAndSample) {
  ReplayBuffer replay(50, 2);
  std::thread writer([&] {
    for (int i = 0; i < 200; ++i) replay.Insert(OfLength(1 + i % 7, i));
  });
  int64_t sampled = 0;
  for (int i = 0; i < 200; ++i) sampled += replay.Sample(8).size();
  writer.join();
  EXPECT_EQ(replay.size(), 50);
  EXPECT_EQ(replay.counters().sampled, sampled);
}

}  // namespace
}  // namespace mmapzero::agent
