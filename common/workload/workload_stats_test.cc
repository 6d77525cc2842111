#include "common/workload/workload_stats.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

Buffer* AddBuffer(Workload& workload, int64_t size, bool is_output,
                  int target_time, int tensor_id, int start, int end) {
  Buffer* buffer = workload.add_buffers();
  buffer->set_id(workload.buffers_size() - 1);
  buffer->set_size(size);
  buffer->set_is_output(is_output);
  buffer->set_target_time(target_time);
  buffer->set_tensor_id(tensor_id);
  buffer->mutable_live_range()->set_start(start);
  buffer->mutable_live_range()->set_end(end);
  return buffer;
}

// Five steps, memory 100 bytes, three tensors:
//   tensor 0: 40 bytes, live [0, 2] (written at 0, read at 2)
//   tensor 1: 70 bytes, live [1, 3] (written at 1, read at 3), alias group 7
//   tensor 2: 120 bytes, live [4, 4] (read at 4), larger than the memory
// Live bytes per step: 40, 110, 110, 70, 120.
Workload ThreeTensorWorkload() {
  Workload workload;
  workload.set_memory_size(100);
  workload.add_instructions()->mutable_roofline()->set_compute_us(1);
  workload.add_instructions()->mutable_measured();
  for (int t = 2; t < 5; ++t) workload.add_instructions()->set_supply_us(1);
  AddBuffer(workload, 40, true, 0, 0, 0, 2);
  AddBuffer(workload, 70, true, 1, 1, 1, 3)->set_alias_id(7);
  AddBuffer(workload, 40, false, 2, 0, 0, 2);
  AddBuffer(workload, 70, false, 3, 1, 1, 3)->set_alias_id(7);
  AddBuffer(workload, 120, false, 4, 2, 4, 4);
  return workload;
}

TEST(WorkloadStatsTest, CountsInstructionsBuffersTensorsAndAliasGroups) {
  const WorkloadStats stats = ComputeWorkloadStats(ThreeTensorWorkload());
  EXPECT_EQ(stats.num_instructions, 5);
  EXPECT_EQ(stats.num_buffers, 5);
  EXPECT_EQ(stats.num_operands, 3);
  EXPECT_EQ(stats.num_outputs, 2);
  EXPECT_EQ(stats.num_tensors, 3);
  EXPECT_EQ(stats.num_alias_groups, 1);
  EXPECT_EQ(stats.num_alias_members, 2);
  EXPECT_EQ(stats.largest_alias_group, 2);
}

TEST(WorkloadStatsTest, CountsLatencyModels) {
  const WorkloadStats stats = ComputeWorkloadStats(ThreeTensorWorkload());
  EXPECT_EQ(stats.num_roofline, 1);
  EXPECT_EQ(stats.num_measured, 1);
  EXPECT_EQ(stats.num_static, 3);
}

TEST(WorkloadStatsTest, SummarisesBufferAndTensorSizes) {
  const WorkloadStats stats = ComputeWorkloadStats(ThreeTensorWorkload());
  // Buffers 40, 40, 70, 70, 120.
  EXPECT_EQ(stats.buffer_bytes.count, 5);
  EXPECT_EQ(stats.buffer_bytes.min, 40);
  EXPECT_EQ(stats.buffer_bytes.median, 70);
  EXPECT_EQ(stats.buffer_bytes.max, 120);
  EXPECT_EQ(stats.buffer_bytes.total, 340);
  // Tensors 40, 70, 120: each counted once.
  EXPECT_EQ(stats.tensor_bytes.count, 3);
  EXPECT_EQ(stats.tensor_bytes.min, 40);
  EXPECT_EQ(stats.tensor_bytes.median, 70);
  EXPECT_EQ(stats.tensor_bytes.max, 120);
  EXPECT_EQ(stats.tensor_bytes.total, 230);
  EXPECT_EQ(stats.num_buffers_over_memory, 1);
  EXPECT_EQ(stats.num_tensors_over_memory, 1);
}

TEST(WorkloadStatsTest, MedianOfAnEvenCountIsTheLowerMiddle) {
  Workload workload;
  workload.set_memory_size(1000);
  workload.add_instructions();
  for (int64_t size : {40, 10, 30, 20}) {
    AddBuffer(workload, size, false, 0, workload.buffers_size(), 0, 0);
  }
  EXPECT_EQ(ComputeWorkloadStats(workload).buffer_bytes.median, 20);
}

TEST(WorkloadStatsTest, LiveBytesCountEachTensorOnceOverItsLiveRange) {
  const WorkloadStats stats = ComputeWorkloadStats(ThreeTensorWorkload());
  EXPECT_THAT(stats.live_bytes, ElementsAre(40, 110, 110, 70, 120));
  EXPECT_EQ(stats.peak_live_bytes, 120);
  EXPECT_EQ(stats.peak_time, 4);
  EXPECT_DOUBLE_EQ(stats.mean_live_bytes, 90.0);  // 450 / 5
  EXPECT_EQ(stats.steps_over_memory, 3);          // 110, 110, 120 > 100
  EXPECT_DOUBLE_EQ(stats.fraction_over_memory, 0.6);
}

TEST(WorkloadStatsTest, PeakTimeIsTheFirstStepAtThePeak) {
  Workload workload = ThreeTensorWorkload();
  workload.mutable_buffers(4)->set_size(110);  // ties with steps 1 and 2
  const WorkloadStats stats = ComputeWorkloadStats(workload);
  EXPECT_EQ(stats.peak_live_bytes, 110);
  EXPECT_EQ(stats.peak_time, 1);
}

TEST(WorkloadStatsTest, TensorTakesLargestBufferAndUnionOfLiveRanges) {
  Workload workload;
  workload.set_memory_size(100);
  for (int t = 0; t < 4; ++t) workload.add_instructions();
  AddBuffer(workload, 10, true, 0, 5, 0, 1);
  AddBuffer(workload, 30, false, 2, 5, 2, 2);
  const WorkloadStats stats = ComputeWorkloadStats(workload);
  EXPECT_EQ(stats.num_tensors, 1);
  EXPECT_EQ(stats.tensor_bytes.total, 30);
  EXPECT_THAT(stats.live_bytes, ElementsAre(30, 30, 30, 0));
}

TEST(WorkloadStatsTest, WorkloadWithoutBuffersHasZeroPressure) {
  Workload workload;
  workload.set_memory_size(100);
  for (int t = 0; t < 3; ++t) workload.add_instructions();
  const WorkloadStats stats = ComputeWorkloadStats(workload);
  EXPECT_EQ(stats.num_tensors, 0);
  EXPECT_EQ(stats.buffer_bytes.count, 0);
  EXPECT_EQ(stats.buffer_bytes.median, 0);
  EXPECT_THAT(stats.live_bytes, ElementsAre(0, 0, 0));
  EXPECT_EQ(stats.peak_live_bytes, 0);
  EXPECT_DOUBLE_EQ(stats.mean_live_bytes, 0);
  EXPECT_EQ(stats.steps_over_memory, 0);
}

TEST(PeakPerBucketTest, KeepsTheLargestValueOfEachBucket) {
  // Two buckets over five steps: [0, 2) and [2, 5).
  EXPECT_THAT(PeakPerBucket({1, 5, 2, 8, 3}, 2), ElementsAre(5, 8));
  EXPECT_EQ(BucketStart(1, 2, 5), 2);
  EXPECT_EQ(BucketStart(2, 2, 5), 5);
}

TEST(PeakPerBucketTest, UsesOneBucketPerStepWhenStepsAreFew) {
  EXPECT_THAT(PeakPerBucket({1, 5, 2}, 60), ElementsAre(1, 5, 2));
}

TEST(PeakPerBucketTest, EmptyForNoStepsOrNoBuckets) {
  EXPECT_THAT(PeakPerBucket({}, 10), IsEmpty());
  EXPECT_THAT(PeakPerBucket({1, 2}, 0), IsEmpty());
}

}  // namespace
}  // namespace mmapzero
