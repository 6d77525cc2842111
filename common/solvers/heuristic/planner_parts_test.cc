// Hand-worked checks of the heuristic's parts: the interval picker, the
// memory-boundedness ranking, the capacity profile and the copy schedule.
#include <vector>

#include "common/solvers/heuristic/capacity_profile.h"
#include "common/solvers/heuristic/copy_schedule.h"
#include "common/solvers/heuristic/elapsed_time.h"
#include "common/solvers/heuristic/memory_boundedness.h"
#include "common/solvers/heuristic/prefetch_interval_picker.h"
#include "gtest/gtest.h"

namespace mmapzero::solvers {
namespace {

// Ten steps of 1 us; a copy of 2 us used at step 8.
TEST(PrefetchIntervalPickerTest, BoundsFollowTheThreeRatios) {
  const ElapsedTime elapsed(std::vector<double>(10, 1.0));
  const CostAnalysisPrefetchIntervalPicker picker(&elapsed, {0.8, 1.5, 10});
  // max: at most 20 us before the use -> from step 0 (8 us).
  EXPECT_EQ(picker.EarliestStart(2, 8, 0), 0);
  // min: at least 1.6 us -> the latest start is 6 (2 us).
  EXPECT_EQ(picker.LatestStart(2, 8, 0), 6);
  // preferred: at least 3 us -> 5.
  EXPECT_EQ(picker.PreferredStart(2, 8, 0), 5);
  EXPECT_EQ(picker.PrefetchStarts(2, 8, 0),
            (std::vector<int32_t>{5, 6, 4, 3, 2, 1, 0}));
  // A lower bound (the live range start) cuts the earlier candidates.
  EXPECT_EQ(picker.PrefetchStarts(2, 8, 4), (std::vector<int32_t>{5, 6, 4}));
}

TEST(PrefetchIntervalPickerTest, KeepsResidentOnlyAcrossShortGaps) {
  const ElapsedTime elapsed(std::vector<double>(10, 1.0));
  const CostAnalysisPrefetchIntervalPicker generous(&elapsed, {0.8, 1.5, 10});
  const CostAnalysisPrefetchIntervalPicker tight(&elapsed, {0.8, 1.5, 2});
  // The gap between uses at 1 and 8 is steps 2..7: 6 us.
  EXPECT_TRUE(generous.CanKeepResident(2, 1, 8));  // 6 <= 20
  EXPECT_FALSE(tight.CanKeepResident(2, 1, 8));    // 6 > 4
  EXPECT_TRUE(tight.CanKeepResident(2, 1, 5));     // 3 <= 4
  EXPECT_TRUE(tight.CanKeepResident(0, 3, 4));     // adjacent uses
}

TEST(MemoryBoundednessTest, BenefitPerSquareRootOfSize) {
  EXPECT_DOUBLE_EQ(MemoryBoundedness(8, 16), 2);
  EXPECT_DOUBLE_EQ(MemoryBoundedness(6, 9), 2);
  EXPECT_DOUBLE_EQ(MemoryBoundedness(5, 0), 0);
}

TEST(MemoryBoundednessTest, RanksBoundedFirstThenLargerThenLongerLived) {
  auto set = [](int32_t tensor, double benefit, int64_t size, int32_t steps) {
    AliasSet s;
    s.tensors = {tensor};
    s.benefit_us = benefit;
    s.size = size;
    s.live_steps = steps;
    s.memory_boundedness = MemoryBoundedness(benefit, size);
    return s;
  };
  std::vector<AliasSet> sets = {
      set(0, 8, 16, 3),   // 2.0, size 16
      set(1, 6, 9, 3),    // 2.0, size 9
      set(2, 3, 1, 1),    // 3.0
      set(3, 8, 16, 10),  // 2.0, size 16, longer lived
      set(4, 1, 100, 50)  // 0.1
  };
  RankAliasSets(&sets);
  std::vector<int32_t> order;
  for (const AliasSet& s : sets) order.push_back(s.tensors[0]);
  EXPECT_EQ(order, (std::vector<int32_t>{2, 3, 0, 1, 4}));
}

TEST(CapacityProfileTest, ReservesAndReleasesOverIntervals) {
  CapacityProfile profile(10, 10);
  profile.Add(2, 5, 6);
  EXPECT_TRUE(profile.Fits(0, 1, 10));
  EXPECT_FALSE(profile.Fits(0, 2, 5));
  EXPECT_TRUE(profile.Fits(0, 2, 4));
  EXPECT_EQ(profile.Peak(3, 4), 6);
  profile.Add(4, 7, 3);
  EXPECT_EQ(profile.Peak(4, 5), 9);
  EXPECT_EQ(profile.Peak(6, 9), 3);
  profile.Add(2, 5, -6);
  EXPECT_EQ(profile.Peak(0, 9), 3);
  EXPECT_TRUE(profile.Fits(5, 4, 100));  // empty interval
}

// One us of supply per step. A prefetch for a use at 8 needing 2 us takes
// [6, 7]. A copy decided before it (a use at 7) would take [5, 6] and leave
// the first one no room, so the schedule refuses it and keeps [6, 7].
TEST(CopyScheduleTest, RefusesACopyThatWouldDisplaceAPlannedOne) {
  CopySchedule schedule(std::vector<double>(10, 1.0));
  game::CopyInterval seen;
  auto accept = [&seen](const game::CopyInterval& interval, int32_t* limit) {
    seen = interval;
    *limit = interval.first;  // memory reserved from the copy's start
    return true;
  };
  ASSERT_TRUE(
      schedule.Insert({/*position=*/5, /*time=*/8, 0, 2, false}, accept));
  EXPECT_EQ(seen.first, 6);
  EXPECT_EQ(seen.last, 7);
  EXPECT_FALSE(
      schedule.Insert({/*position=*/2, /*time=*/7, 0, 2, false}, accept));
  EXPECT_EQ(schedule.size(), 1);
  // A copy decided earlier that ends before 6 shares at most step 6: fine.
  ASSERT_TRUE(
      schedule.Insert({/*position=*/1, /*time=*/5, 0, 2, false}, accept));
  EXPECT_EQ(seen.first, 3);
  EXPECT_EQ(seen.last, 4);
  schedule.Remove(1);
  EXPECT_EQ(schedule.size(), 1);
}

TEST(CopyScheduleTest, WriteBackTakesTheEarliestEnd) {
  CopySchedule schedule(std::vector<double>(10, 1.0));
  game::CopyInterval seen;
  ASSERT_TRUE(schedule.Insert(
      {/*position=*/0, /*time=*/2, 0, 1.5, true},
      [&seen](const game::CopyInterval& interval, int32_t* limit) {
        seen = interval;
        *limit = interval.last;
        return true;
      }));
  EXPECT_EQ(seen.first, 3);
  EXPECT_EQ(seen.last, 4);
}

}  // namespace
}  // namespace mmapzero::solvers
