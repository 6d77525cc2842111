#include "common/workload/loop_nest.h"

#include <string>

#include "common/workload/workload_check.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero {
namespace {

using ::testing::HasSubstr;

Workload Steps(int num_steps) {
  Workload workload;
  workload.set_memory_size(1024);
  for (int t = 0; t < num_steps; ++t) {
    workload.add_instructions()->set_supply_us(1.0);
  }
  return workload;
}

void AddLoop(Workload* workload, int first, int last, int64_t trips) {
  Loop* loop = workload->add_loops();
  loop->set_name("loop" + std::to_string(workload->loops_size() - 1));
  loop->set_first_step(first);
  loop->set_last_step(last);
  loop->set_trip_count(trips);
}

TEST(LoopNestTest, StraightLineProgramIsOneRunOfRepeatOne) {
  const Workload workload = Steps(5);
  const LoopNest nest(workload);
  EXPECT_FALSE(nest.has_loops());
  for (int t = 0; t < 5; ++t) {
    EXPECT_EQ(nest.Repeat(t), 1.0);
    EXPECT_EQ(nest.RunStart(t), 0);
    EXPECT_EQ(nest.RunEnd(t), 4);
    EXPECT_EQ(nest.InnermostLoop(t), -1);
  }
}

// Steps 0..9; an outer loop over [2, 8] of 3 trips holds an inner one over
// [4, 5] of 5 trips. Repeats: 1 1 3 3 15 15 3 3 3 1. Runs: [0,1], [2,3],
// [4,5], [6,8], [9,9].
TEST(LoopNestTest, NestedLoopsMultiplyAndSplitRuns) {
  Workload workload = Steps(10);
  AddLoop(&workload, 4, 5, 5);  // listed inner first: order does not matter
  AddLoop(&workload, 2, 8, 3);
  ASSERT_TRUE(CheckLoops(workload).ok());
  const LoopNest nest(workload);
  const double repeat[] = {1, 1, 3, 3, 15, 15, 3, 3, 3, 1};
  const int start[] = {0, 0, 2, 2, 4, 4, 6, 6, 6, 9};
  const int end[] = {1, 1, 3, 3, 5, 5, 8, 8, 8, 9};
  const int innermost[] = {-1, -1, 1, 1, 0, 0, 1, 1, 1, -1};
  for (int t = 0; t < 10; ++t) {
    EXPECT_EQ(nest.Repeat(t), repeat[t]) << t;
    EXPECT_EQ(nest.RunStart(t), start[t]) << t;
    EXPECT_EQ(nest.RunEnd(t), end[t]) << t;
    EXPECT_EQ(nest.InnermostLoop(t), innermost[t]) << t;
  }
}

TEST(LoopNestTest, AdjacentLoopsAreSeparateRuns) {
  Workload workload = Steps(4);
  AddLoop(&workload, 0, 1, 2);
  AddLoop(&workload, 2, 3, 2);
  ASSERT_TRUE(CheckLoops(workload).ok());
  const LoopNest nest(workload);
  EXPECT_EQ(nest.RunEnd(1), 1);
  EXPECT_EQ(nest.RunStart(2), 2);
}

TEST(CheckLoopsTest, RefusesCrossingLoopsNamingBoth) {
  Workload workload = Steps(10);
  AddLoop(&workload, 1, 5, 2);
  AddLoop(&workload, 3, 7, 2);
  const absl::Status status = CheckWorkload(workload);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("loops[1].last_step: 7 leaves loops[0]"));
  EXPECT_THAT(status.message(), HasSubstr("nest or be disjoint"));
}

TEST(CheckLoopsTest, RefusesBadTripCountsAndSteps) {
  Workload zero = Steps(4);
  AddLoop(&zero, 1, 2, 0);
  EXPECT_THAT(CheckLoops(zero).message(),
              HasSubstr("loops[0].trip_count: must be in [1, 2^31], got 0"));
  Workload outside = Steps(4);
  AddLoop(&outside, 1, 4, 2);
  EXPECT_THAT(CheckLoops(outside).message(),
              HasSubstr("loops[0].last_step: must be in [first_step 1, 3], got 4"));
  Workload negative = Steps(4);
  AddLoop(&negative, -1, 2, 2);
  EXPECT_THAT(CheckLoops(negative).message(),
              HasSubstr("loops[0].first_step"));
  Workload reversed = Steps(4);
  AddLoop(&reversed, 2, 1, 2);
  EXPECT_THAT(CheckLoops(reversed).message(), HasSubstr("loops[0].last_step"));
}

TEST(CheckLoopsTest, RefusesARepeatPastTheLimit) {
  Workload workload = Steps(3);
  AddLoop(&workload, 0, 2, int64_t{1} << 31);
  AddLoop(&workload, 1, 1, int64_t{1} << 31);
  EXPECT_THAT(CheckLoops(workload).message(),
              HasSubstr("step 1 runs"));
}

}  // namespace
}  // namespace mmapzero
