#include "common/workload/static_features.h"

#include "common/workload/workload_check.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero {
namespace {

using ::testing::HasSubstr;

Buffer* AddBuffer(Workload* workload, int64_t size, bool is_output, int time,
                  int tensor) {
  Buffer* buffer = workload->add_buffers();
  buffer->set_id(workload->buffers_size() - 1);
  buffer->set_size(size);
  buffer->set_is_output(is_output);
  buffer->set_target_time(time);
  buffer->set_tensor_id(tensor);
  buffer->mutable_live_range()->set_start(0);
  buffer->mutable_live_range()->set_end(2);
  return buffer;
}

// 1 TFLOP/s = 1e6 FLOP/us; 1 GB/s = 1e3 bytes/us.
//   t=0 roofline, 2e6 FLOPs (2 us): b0 reads 1000 bytes, b1 writes 3000.
//   t=1 roofline, compute_us 10: b2 reads 2000 bytes.
//   t=2 measured over b3 (latency 5 slow, 2 fast); b4 unlisted, benefit 1.
Workload HandMadeWorkload() {
  Workload workload;
  workload.set_memory_size(1 << 20);
  HardwareProfile* hw = workload.mutable_hardware();
  hw->set_peak_tflops(1);
  hw->set_slow_bandwidth_gbps(1);
  hw->set_fast_bandwidth_gbps(4);
  hw->set_copy_bandwidth_gbps(2);
  workload.add_instructions()->mutable_roofline()->set_flops(2e6);
  workload.add_instructions()->mutable_roofline()->set_compute_us(10);
  MeasuredLatency* measured = workload.add_instructions()->mutable_measured();
  measured->add_buffer_ids(3);
  measured->add_latency_us(5);
  measured->add_latency_us(2);
  AddBuffer(&workload, 1000, false, 0, 0);
  AddBuffer(&workload, 3000, true, 0, 1);
  AddBuffer(&workload, 2000, false, 1, 1);
  AddBuffer(&workload, 500, false, 2, 2);
  AddBuffer(&workload, 700, false, 2, 3)->set_benefit_us(1.0);
  return workload;
}

TEST(StaticFeaturesTest, DemandIsSizeOverCopyBandwidth) {
  Workload workload = HandMadeWorkload();
  ASSERT_TRUE(FillStaticFeatures(&workload).ok());
  EXPECT_DOUBLE_EQ(workload.buffers(0).demand_us(), 0.5);   // 1000 / 2e3
  EXPECT_DOUBLE_EQ(workload.buffers(1).demand_us(), 1.5);   // 3000 / 2e3
  EXPECT_DOUBLE_EQ(workload.buffers(4).demand_us(), 0.35);  // 700 / 2e3
}

TEST(StaticFeaturesTest, RooflineBenefitIsLatencySavedByOneBuffer) {
  Workload workload = HandMadeWorkload();
  ASSERT_TRUE(FillStaticFeatures(&workload).ok());
  // L({}) = max(2, 1 + 3) = 4; L({b0}) = max(2, 0.25 + 3) = 3.25;
  // L({b1}) = max(2, 1 + 0.75) = 2.
  EXPECT_DOUBLE_EQ(workload.buffers(0).benefit_us(), 0.75);
  EXPECT_DOUBLE_EQ(workload.buffers(1).benefit_us(), 2.0);
  // Compute-bound: L({}) = max(10, 2) = 10 = L({b2}).
  EXPECT_DOUBLE_EQ(workload.buffers(2).benefit_us(), 0.0);
}

TEST(StaticFeaturesTest, SupplyIsLatencyWithAllBuffersFast) {
  Workload workload = HandMadeWorkload();
  ASSERT_TRUE(FillStaticFeatures(&workload).ok());
  EXPECT_DOUBLE_EQ(workload.instructions(0).supply_us(), 2.0);  // compute
  EXPECT_DOUBLE_EQ(workload.instructions(1).supply_us(), 10.0);
}

TEST(StaticFeaturesTest, MeasuredTableGivesListedBenefitsAndSupply) {
  Workload workload = HandMadeWorkload();
  ASSERT_TRUE(FillStaticFeatures(&workload).ok());
  EXPECT_DOUBLE_EQ(workload.buffers(3).benefit_us(), 3.0);  // 5 - 2
  EXPECT_DOUBLE_EQ(workload.buffers(4).benefit_us(), 1.0);  // kept
  // latency_us[all listed] = 2, minus the unlisted buffer's benefit 1.
  EXPECT_DOUBLE_EQ(workload.instructions(2).supply_us(), 1.0);
}

TEST(StaticFeaturesTest, StaticOnlyWorkloadPassesCheck) {
  Workload workload = HandMadeWorkload();
  ASSERT_TRUE(FillStaticFeatures(&workload).ok());
  DropLatencyModels(&workload);
  for (const Instruction& instruction : workload.instructions()) {
    EXPECT_EQ(instruction.latency_case(), Instruction::LATENCY_NOT_SET);
    EXPECT_TRUE(instruction.has_supply_us());
  }
  EXPECT_TRUE(CheckWorkload(workload).ok()) << CheckWorkload(workload);
}

TEST(StaticFeaturesTest, RejectsWorkloadWithoutCopyBandwidth) {
  Workload workload = HandMadeWorkload();
  workload.mutable_hardware()->set_copy_bandwidth_gbps(0);
  for (Buffer& buffer : *workload.mutable_buffers()) buffer.set_demand_us(1);
  const absl::Status status = FillStaticFeatures(&workload);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("copy_bandwidth_gbps"));
}

TEST(StaticFeaturesTest, RejectsWorkloadFailingCheck) {
  Workload workload = HandMadeWorkload();
  workload.mutable_buffers(0)->set_size(0);
  EXPECT_THAT(FillStaticFeatures(&workload).message(),
              HasSubstr("buffers[0].size"));
}

}  // namespace
}  // namespace mmapzero
