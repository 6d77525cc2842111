#include "replay/replay_table.h"

#include <map>
#include <thread>
#include <utility>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "replay/test_trajectories.h"

namespace mmapzero::replay {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

ReplayTableOptions Options(int64_t capacity) {
  ReplayTableOptions options;
  options.capacity = capacity;
  options.limiter.min_positions = 0;
  options.limiter.samples_per_insert = 0;
  return options;
}

std::vector<agent::Trajectory> Games(std::vector<int> lengths) {
  std::vector<agent::Trajectory> games;
  for (int n : lengths) games.push_back(MakeTrajectory(n));
  return games;
}

const absl::Time kNoWait = absl::InfinitePast();

TEST(ReplayTableTest, FifoKeepsTheNewestCapacityTrajectories) {
  ReplayTable table(Options(2));
  ASSERT_THAT(*table.Insert(Games({3, 4})), ElementsAre(1, 2));
  ASSERT_THAT(*table.Insert(Games({5})), ElementsAre(3));
  const v1::ReplayStats stats = table.Stats();
  EXPECT_EQ(stats.trajectories(), 2);
  EXPECT_EQ(stats.positions(), 4 + 5);
  EXPECT_EQ(stats.capacity(), 2);
  EXPECT_EQ(stats.inserted(), 3);
  std::vector<uint64_t> ids;
  for (const StoredTrajectory& s : table.SampleTrajectories(10, 1)) {
    ids.push_back(s.id);
  }
  EXPECT_THAT(ids, UnorderedElementsAre(2, 3));

  table.SetCapacity(1);
  EXPECT_EQ(table.Stats().trajectories(), 1);
  EXPECT_EQ(table.SampleTrajectories(10, 1)[0].id, 3u);
}

TEST(ReplayTableTest, ByteLimitEvictsTheOldestButKeepsTheNewest) {
  const int64_t ten_steps = TrajectoryBytes(MakeTrajectory(10));
  EXPECT_GT(TrajectoryBytes(MakeTrajectory(20)), ten_steps);
  ReplayTableOptions options = Options(100);
  options.max_bytes = 2 * ten_steps + ten_steps / 2;  // two games of 10
  ReplayTable table(options);
  ASSERT_TRUE(table.Insert(Games({10, 10})).ok());
  EXPECT_EQ(table.Stats().trajectories(), 2);
  EXPECT_EQ(table.Stats().bytes(), 2 * ten_steps);
  EXPECT_EQ(table.Stats().max_bytes(), options.max_bytes);

  ASSERT_THAT(*table.Insert(Games({10})), ElementsAre(3));
  v1::ReplayStats stats = table.Stats();
  EXPECT_EQ(stats.trajectories(), 2);  // game 1 went
  EXPECT_EQ(stats.positions(), 20);
  EXPECT_LE(stats.bytes(), options.max_bytes);

  // A game larger than the limit alone replaces everything but stays.
  ASSERT_THAT(*table.Insert(Games({100})), ElementsAre(4));
  stats = table.Stats();
  EXPECT_EQ(stats.trajectories(), 1);
  EXPECT_EQ(stats.positions(), 100);
  EXPECT_GT(stats.bytes(), options.max_bytes);
  EXPECT_EQ(table.SampleTrajectories(10, 1)[0].id, 4u);
}

TEST(ReplayTableTest, RejectsAnotherObservationShapeAndStoresNothing) {
  ReplayTable table(Options(10));
  ASSERT_TRUE(table.Insert(Games({2})).ok());
  std::vector<agent::Trajectory> batch = Games({2});
  batch.push_back(MakeTrajectory(2, /*occupancy_size=*/5));
  const auto result = table.Insert(std::move(batch));
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(),
              HasSubstr("trajectories[1].steps[0]: observation sizes "
                        "(occupancy 5, vector 2) differ"));
  EXPECT_EQ(table.Stats().inserted(), 1);
}

TEST(ReplayTableTest, UniformWindowsCoverEveryStepAndRepeatPerSeed) {
  ReplayTable table(Options(10));
  ASSERT_TRUE(table.Insert(Games({1, 3})).ok());
  // 4 positions: (1, 0), (2, 0), (2, 1), (2, 2), each about 1/4.
  const auto windows = table.SampleWindows(4000, 5, kNoWait);
  ASSERT_TRUE(windows.ok()) << windows.status();
  std::map<std::pair<uint64_t, int>, int> counts;
  for (const SampledWindow& w : *windows) ++counts[{w.stored.id, w.start}];
  ASSERT_EQ(counts.size(), 4u);
  for (const auto& [position, count] : counts) {
    EXPECT_GT(count, 850) << position.first << "," << position.second;
  }
  const auto again = table.SampleWindows(4000, 5, kNoWait);
  for (size_t i = 0; i < windows->size(); ++i) {
    ASSERT_EQ((*windows)[i].start, (*again)[i].start);
    ASSERT_EQ((*windows)[i].stored.id, (*again)[i].stored.id);
  }
  EXPECT_EQ(table.Stats().sampled(), 8000);
}

TEST(ReplayTableTest, ContextStepsOfASegmentAreNeverPositions) {
  for (const Sampler sampler : {Sampler::kUniform, Sampler::kPrioritised}) {
    ReplayTableOptions options = Options(10);
    options.sampler = sampler;
    ReplayTable table(options);
    agent::Trajectory segment = MakeTrajectory(6);
    segment.continues = true;
    segment.context_steps = 4;  // positions 0 and 1 only
    ASSERT_TRUE(table.Insert({segment}).ok());
    EXPECT_EQ(table.Stats().positions(), 2);
    const auto windows = table.SampleWindows(2000, 7, kNoWait);
    ASSERT_TRUE(windows.ok()) << windows.status();
    std::map<int, int> counts;
    for (const SampledWindow& w : *windows) ++counts[w.start];
    EXPECT_EQ(counts.size(), 2u);
    EXPECT_EQ(counts.count(0) + counts.count(1), 2u);
  }
}

TEST(ReplayTableTest, PrioritisedFavoursLargeValueErrors) {
  ReplayTableOptions options = Options(10);
  options.sampler = Sampler::kPrioritised;
  options.td_steps = 1;
  options.discount = 1.0;
  ReplayTable table(options);
  // z_0 = r_0 + v_1 = 0 + 0 against v_0 = 1: priority 1.001; z_1 = r_1 = 0
  // against v_1 = 0: priority 0.001. Step 1: 1 in 1002.
  agent::Trajectory t = MakeTrajectory(2);
  t.steps[0].reward = 0;
  t.steps[0].root_value = 1;
  t.steps[1].reward = 0;
  t.steps[1].root_value = 0;
  ASSERT_TRUE(table.Insert({t}).ok());
  const auto windows = table.SampleWindows(2000, 3, kNoWait);
  ASSERT_TRUE(windows.ok());
  int step1 = 0;
  for (const SampledWindow& w : *windows) step1 += w.start == 1;
  EXPECT_LT(step1, 12);  // about 2 expected

  // Reanalyse values both steps at 5: z_0 = 0 + 5 matches v_0 (priority
  // 0.001), z_1 = 0 is 5 off v_1 (5.001). Step 1 is now the likely one.
  v1::UpdateTargetsRequest update;
  v1::TargetUpdate* u = update.add_updates();
  u->set_trajectory_id(1);
  u->set_first_step(0);
  u->add_root_values(5);
  u->add_root_values(5);
  for (int i = 0; i < 6; ++i) u->add_policies(1);
  ASSERT_TRUE(table.UpdateTargets(update).ok());
  // Kept in a variable: a range-for over `*Temporary()` would iterate a
  // StatusOr destroyed before the loop body (ASan: stack-use-after-scope).
  const auto resampled = table.SampleWindows(2000, 3, kNoWait);
  ASSERT_TRUE(resampled.ok());
  step1 = 0;
  for (const SampledWindow& w : *resampled) step1 += w.start == 1;
  EXPECT_GT(step1, 1988);  // about 1999.6 expected
}

TEST(ReplayTableTest, RateLimiterWaitsForInserts) {
  ReplayTableOptions options = Options(10);
  options.limiter = {.min_positions = 2, .samples_per_insert = 1, .slack = 0};
  ReplayTable table(options);
  ASSERT_TRUE(table.Insert(Games({1})).ok());
  auto held = table.SampleWindows(1, 1, kNoWait);
  EXPECT_EQ(held.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(held.status().message(), HasSubstr("training starts at 2"));
  ASSERT_TRUE(table.Insert(Games({2})).ok());  // 3 positions: 3 windows
  ASSERT_TRUE(table.SampleWindows(3, 1, kNoWait).ok());
  held = table.SampleWindows(1, 1, kNoWait);
  EXPECT_EQ(held.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(held.status().message(), HasSubstr("rate limited"));

  // A waiting sampler is released by the next insert.
  std::thread sampler([&table] {
    const auto windows =
        table.SampleWindows(2, 1, absl::Now() + absl::Seconds(30));
    EXPECT_TRUE(windows.ok()) << windows.status();
  });
  ASSERT_TRUE(table.Insert(Games({2})).ok());
  sampler.join();
  EXPECT_EQ(table.Stats().sampled(), 5);
}

v1::UpdateTargetsRequest OneUpdate(uint64_t id, int first, int steps) {
  v1::UpdateTargetsRequest request;
  v1::TargetUpdate* u = request.add_updates();
  u->set_trajectory_id(id);
  u->set_first_step(first);
  u->set_parameter_version(99);
  for (int i = 0; i < steps; ++i) {
    u->add_root_values(100.0f + i);
    u->add_policies(0.5f);
    u->add_policies(0.25f);
    u->add_policies(0.25f);
  }
  return request;
}

TEST(ReplayTableTest, UpdateTargetsChangesOnlyTheTargets) {
  ReplayTable table(Options(10));
  ASSERT_TRUE(table.Insert(Games({4})).ok());
  const auto before = table.SampleTrajectories(1, 1)[0];
  const auto result = table.UpdateTargets(OneUpdate(1, 1, 2));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->updated, 1);
  const auto after = table.SampleTrajectories(1, 1)[0];
  EXPECT_EQ(after.targets_version, 99);
  const agent::Trajectory expected = MakeTrajectory(4);
  for (int i = 0; i < 4; ++i) {
    const agent::TrajectoryStep& s = after.trajectory->steps[i];
    const agent::TrajectoryStep& e = expected.steps[i];
    const bool updated = i == 1 || i == 2;
    EXPECT_EQ(s.root_value, updated ? 100.0f + (i - 1) : e.root_value) << i;
    EXPECT_EQ(s.policy[0], updated ? 0.5f : e.policy[0]) << i;
    EXPECT_EQ(s.reward, e.reward) << i;
    EXPECT_EQ(s.action, e.action) << i;
    EXPECT_EQ(s.observation.vector, e.observation.vector) << i;
  }
  // The trajectory handed out before is untouched.
  EXPECT_EQ(before.trajectory->steps[1].root_value, 0.1f);
  EXPECT_EQ(table.Stats().reanalysed(), 1);
}

TEST(ReplayTableTest, BadUpdatesAreRejectedAndChangeNothing) {
  ReplayTable table(Options(10));
  ASSERT_TRUE(table.Insert(Games({4})).ok());
  const int64_t generation = table.generation();

  v1::UpdateTargetsRequest unknown = OneUpdate(1, 0, 1);
  *unknown.add_updates() = OneUpdate(7, 0, 1).updates(0);
  auto result = table.UpdateTargets(unknown);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(result.status().message(),
              HasSubstr("updates[1].trajectory_id: no trajectory 7"));

  result = table.UpdateTargets(OneUpdate(1, 3, 2));  // steps 3, 4 of 0..3
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(),
              HasSubstr("updates[0].first_step: steps [3, 5) do not fit"));

  v1::UpdateTargetsRequest short_policy = OneUpdate(1, 0, 2);
  short_policy.mutable_updates(0)->mutable_policies()->RemoveLast();
  result = table.UpdateTargets(short_policy);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(),
              HasSubstr("updates[0].policies: must have 3 per root value "
                        "(6), got 5"));

  EXPECT_EQ(table.generation(), generation);
  const auto stored = table.SampleTrajectories(1, 1)[0];
  EXPECT_EQ(stored.trajectory->steps[0].root_value, 0.0f);
  EXPECT_EQ(stored.targets_version, 7);
  EXPECT_EQ(table.Stats().reanalysed(), 0);
}

TEST(ReplayTableTest, UpdatesOfEvictedTrajectoriesCountAsGone) {
  ReplayTable table(Options(1));
  ASSERT_TRUE(table.Insert(Games({2, 2})).ok());  // 1 evicted
  v1::UpdateTargetsRequest request = OneUpdate(1, 0, 1);
  *request.add_updates() = OneUpdate(2, 0, 1).updates(0);
  const auto result = table.UpdateTargets(request);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->updated, 1);
  EXPECT_EQ(result->gone, 1);
}

}  // namespace
}  // namespace mmapzero::replay
