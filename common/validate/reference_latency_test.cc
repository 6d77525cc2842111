#include "common/validate/reference_latency.h"

#include "common/validate/tiny_workloads_for_test.h"
#include "common/workload/workload_check.h"
#include "gtest/gtest.h"

namespace mmapzero::validate {
namespace {

using tiny::AddBuffer;
using tiny::StaticWorkload;

TEST(ReferenceLatencyTest, StaticModelAddsBenefitOfEverySlowBuffer) {
  // One step, supply 2: buffers with benefits 3 and 5.
  Workload workload = StaticWorkload(1, 100, 2.0);
  AddBuffer(&workload, {0, false, 0, 10, 0, 0, 0.5, 3.0});
  AddBuffer(&workload, {1, true, 0, 10, 0, 0, 0.5, 5.0});
  ASSERT_TRUE(CheckWorkload(workload).ok());
  const ReferenceLatency latency(workload);
  EXPECT_DOUBLE_EQ(latency.AllSlow(0), 2.0 + 3.0 + 5.0);
  EXPECT_DOUBLE_EQ(latency.Latency(0, {0}), 2.0 + 5.0);
  EXPECT_DOUBLE_EQ(latency.Latency(0, {1}), 2.0 + 3.0);
  EXPECT_DOUBLE_EQ(latency.AllFast(0), 2.0);
  EXPECT_DOUBLE_EQ(latency.Supply(0), 2.0);
  EXPECT_DOUBLE_EQ(latency.Benefit(1), 5.0);
  EXPECT_DOUBLE_EQ(latency.Demand(0), 0.5);
}

TEST(ReferenceLatencyTest, IgnoresBuffersOfOtherInstructionsAndRepeats) {
  Workload workload = StaticWorkload(2, 100, 1.0);
  AddBuffer(&workload, {0, false, 0, 10, 0, 1, 0.5, 3.0});
  AddBuffer(&workload, {1, false, 1, 10, 0, 1, 0.5, 4.0});
  const ReferenceLatency latency(workload);
  EXPECT_DOUBLE_EQ(latency.Latency(0, {1, 0, 0}), 1.0);
  EXPECT_DOUBLE_EQ(latency.Latency(1, {0}), 5.0);
  EXPECT_EQ(latency.BuffersOf(1).size(), 1u);
  EXPECT_EQ(latency.BuffersOf(1)[0], 1);
}

// Peak 1 TFLOP/s, slow 1 GB/s (1000 B/us), fast 10 GB/s, copy 2 GB/s.
// Instruction 0: 2e6 FLOPs -> 2 us; buffers 3000 B (slow 3 us, fast 0.3 us)
// and 1000 B (slow 1 us, fast 0.1 us).
//   L({})     = max(2, 3 + 1)     = 4
//   L({b0})   = max(2, 0.3 + 1)   = 2
//   L({b1})   = max(2, 3 + 0.1)   = 3.1
//   L(all)    = max(2, 0.4)       = 2 = supply
// Derived benefits 4 - 2 = 2 and 4 - 3.1 = 0.9; demands 3000 / 2000 = 1.5
// and 1000 / 2000 = 0.5 us.
Workload RooflineWorkload() {
  Workload workload;
  workload.set_memory_size(10000);
  HardwareProfile* hw = workload.mutable_hardware();
  hw->set_peak_tflops(1.0);
  hw->set_slow_bandwidth_gbps(1.0);
  hw->set_fast_bandwidth_gbps(10.0);
  hw->set_copy_bandwidth_gbps(2.0);
  workload.add_instructions()->mutable_roofline()->set_flops(2e6);
  for (int64_t size : {3000, 1000}) {
    Buffer* buffer = workload.add_buffers();
    buffer->set_id(workload.buffers_size() - 1);
    buffer->set_size(size);
    buffer->set_tensor_id(buffer->id());
  }
  return workload;
}

TEST(ReferenceLatencyTest, RooflineTakesMaxOfComputeAndMemoryTime) {
  const Workload workload = RooflineWorkload();
  ASSERT_TRUE(CheckWorkload(workload).ok());
  const ReferenceLatency latency(workload);
  EXPECT_DOUBLE_EQ(latency.AllSlow(0), 4.0);
  EXPECT_DOUBLE_EQ(latency.Latency(0, {0}), 2.0);
  EXPECT_DOUBLE_EQ(latency.Latency(0, {1}), 3.1);
  EXPECT_DOUBLE_EQ(latency.AllFast(0), 2.0);
}

TEST(ReferenceLatencyTest, RooflineDerivesSupplyBenefitAndDemand) {
  const ReferenceLatency latency(RooflineWorkload());
  EXPECT_DOUBLE_EQ(latency.Supply(0), 2.0);
  EXPECT_DOUBLE_EQ(latency.Benefit(0), 2.0);
  EXPECT_DOUBLE_EQ(latency.Benefit(1), 0.9);
  EXPECT_DOUBLE_EQ(latency.Demand(0), 1.5);
  EXPECT_DOUBLE_EQ(latency.Demand(1), 0.5);
}

TEST(ReferenceLatencyTest, GivenFeaturesOverrideDerivedOnes) {
  Workload workload = RooflineWorkload();
  workload.mutable_instructions(0)->set_supply_us(7.0);
  workload.mutable_buffers(0)->set_benefit_us(0.25);
  workload.mutable_buffers(0)->set_demand_us(9.0);
  const ReferenceLatency latency(workload);
  EXPECT_DOUBLE_EQ(latency.Supply(0), 7.0);
  EXPECT_DOUBLE_EQ(latency.Benefit(0), 0.25);
  EXPECT_DOUBLE_EQ(latency.Demand(0), 9.0);
  // The roofline, not the given benefit, still gives L.
  EXPECT_DOUBLE_EQ(latency.Latency(0, {0}), 2.0);
}

TEST(ReferenceLatencyTest, RooflineUsesComputeUsWithoutFlops) {
  Workload workload = RooflineWorkload();
  RooflineLatency* roofline =
      workload.mutable_instructions(0)->mutable_roofline();
  roofline->set_flops(0);
  roofline->set_compute_us(5.0);
  const ReferenceLatency latency(workload);
  EXPECT_DOUBLE_EQ(latency.AllSlow(0), 5.0);  // max(5, 4)
  EXPECT_DOUBLE_EQ(latency.Benefit(0), 0.0);
}

TEST(ReferenceLatencyTest, FlopsTakePrecedenceOverComputeUs) {
  Workload workload = RooflineWorkload();
  workload.mutable_instructions(0)->mutable_roofline()->set_compute_us(50.0);
  const ReferenceLatency latency(workload);
  EXPECT_DOUBLE_EQ(latency.AllFast(0), 2.0);
}

// Measured table over b0 (bit 0) and b1 (bit 1): {} 10, {b0} 7, {b1} 8,
// {b0,b1} 4. b2 is not listed and has static benefit 1.
//   L({b0, b2}) = 7 - 1 = 6;  L(all) = 4 - 1 = 3 = supply.
//   benefit b0 = 10 - 7 = 3, b1 = 10 - 8 = 2.
TEST(ReferenceLatencyTest, MeasuredTableIndexesByMaskAndSubtractsUnlisted) {
  Workload workload;
  workload.set_memory_size(1000);
  workload.mutable_hardware()->set_copy_bandwidth_gbps(1.0);
  MeasuredLatency* measured = workload.add_instructions()->mutable_measured();
  measured->add_buffer_ids(0);
  measured->add_buffer_ids(1);
  for (double us : {10.0, 7.0, 8.0, 4.0}) measured->add_latency_us(us);
  for (int b = 0; b < 3; ++b) {
    Buffer* buffer = workload.add_buffers();
    buffer->set_id(b);
    buffer->set_size(100);
    buffer->set_tensor_id(b);
  }
  workload.mutable_buffers(2)->set_benefit_us(1.0);
  ASSERT_TRUE(CheckWorkload(workload).ok());
  const ReferenceLatency latency(workload);
  EXPECT_DOUBLE_EQ(latency.AllSlow(0), 10.0);
  EXPECT_DOUBLE_EQ(latency.Latency(0, {0, 2}), 6.0);
  EXPECT_DOUBLE_EQ(latency.Latency(0, {1}), 8.0);
  EXPECT_DOUBLE_EQ(latency.AllFast(0), 3.0);
  EXPECT_DOUBLE_EQ(latency.Supply(0), 3.0);
  EXPECT_DOUBLE_EQ(latency.Benefit(0), 3.0);
  EXPECT_DOUBLE_EQ(latency.Benefit(1), 2.0);
  EXPECT_DOUBLE_EQ(latency.Benefit(2), 1.0);
  EXPECT_DOUBLE_EQ(latency.Demand(0), 0.1);  // 100 B at 1000 B/us
}

}  // namespace
}  // namespace mmapzero::validate
