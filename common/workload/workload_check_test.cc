#include "common/workload/workload_check.h"

#include <string>

#include "common/workload/workload_limits.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero {
namespace {

using ::testing::HasSubstr;

// Two instructions, static features only: the smallest valid workload.
Workload TwoStepWorkload() {
  Workload workload;
  workload.set_memory_size(1024);
  for (int t = 0; t < 2; ++t) workload.add_instructions()->set_supply_us(1.0);
  Buffer* buffer = workload.add_buffers();
  buffer->set_id(0);
  buffer->set_size(64);
  buffer->set_target_time(1);
  buffer->set_tensor_id(0);
  buffer->mutable_live_range()->set_start(0);
  buffer->mutable_live_range()->set_end(1);
  buffer->set_demand_us(0.5);
  buffer->set_benefit_us(2.0);
  return workload;
}

TEST(WorkloadCheckTest, AcceptsStaticOnlyWorkload) {
  EXPECT_TRUE(CheckWorkload(TwoStepWorkload()).ok());
}

// The game of a workload without buffers starts at its end: nothing for a
// solver to decide, and a search from that state is a programming error.
TEST(WorkloadCheckTest, RefusesAWorkloadWithoutBuffers) {
  Workload workload = TwoStepWorkload();
  workload.clear_buffers();
  const absl::Status status = CheckWorkload(workload);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("buffers: a workload needs at least "
                                          "one buffer"));
}

TEST(WorkloadCheckTest, RejectsNonPositiveSizeNamingFieldAndValue) {
  Workload workload = TwoStepWorkload();
  workload.mutable_buffers(0)->set_size(-5);
  const absl::Status status = CheckWorkload(workload);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("buffers[0].size"));
  EXPECT_THAT(status.message(), HasSubstr("-5"));
  workload.mutable_buffers(0)->set_size(0);
  EXPECT_THAT(CheckWorkload(workload).message(), HasSubstr("got 0"));
}

TEST(WorkloadCheckTest, RejectsTargetTimeOutOfRange) {
  Workload workload = TwoStepWorkload();
  workload.mutable_buffers(0)->set_target_time(7);
  EXPECT_THAT(CheckWorkload(workload).message(),
              HasSubstr("buffers[0].target_time: must be in [0, 1], got 7"));
}

TEST(WorkloadCheckTest, RejectsLiveRangeOutOfRangeOrInverted) {
  Workload workload = TwoStepWorkload();
  workload.mutable_buffers(0)->mutable_live_range()->set_end(5);
  EXPECT_THAT(CheckWorkload(workload).message(),
              HasSubstr("buffers[0].live_range"));
  workload = TwoStepWorkload();
  workload.mutable_buffers(0)->mutable_live_range()->set_start(1);
  workload.mutable_buffers(0)->mutable_live_range()->set_end(0);
  EXPECT_THAT(CheckWorkload(workload).message(), HasSubstr("[1, 0]"));
}

TEST(WorkloadCheckTest, RejectsTargetTimeOutsideLiveRange) {
  Workload workload = TwoStepWorkload();
  workload.mutable_buffers(0)->mutable_live_range()->set_end(0);
  EXPECT_THAT(
      CheckWorkload(workload).message(),
      HasSubstr("buffers[0].target_time: 1 lies outside live_range [0, 0]"));
}

TEST(WorkloadCheckTest, RejectsAliasGroupMembersOfDifferentSizes) {
  Workload workload = TwoStepWorkload();
  workload.mutable_buffers(0)->set_alias_id(3);
  Buffer* other = workload.add_buffers();
  *other = workload.buffers(0);
  other->set_id(1);
  other->set_size(128);
  EXPECT_THAT(CheckWorkload(workload).message(),
              HasSubstr("buffers[1].size: 128 differs from 64 of buffers[0] in "
                        "the same alias group 3"));
}

TEST(WorkloadCheckTest, RequiresBenefitAndSupplyWithoutLatencyModel) {
  Workload workload = TwoStepWorkload();
  workload.mutable_buffers(0)->clear_benefit_us();
  EXPECT_THAT(CheckWorkload(workload).message(),
              HasSubstr("buffers[0].benefit_us"));
  workload = TwoStepWorkload();
  workload.mutable_instructions(1)->clear_supply_us();
  EXPECT_THAT(CheckWorkload(workload).message(),
              HasSubstr("instructions[1].supply_us"));
}

TEST(WorkloadCheckTest, BufferLargerThanMemoryIsNotAnError) {
  Workload workload = TwoStepWorkload();
  workload.mutable_buffers(0)->set_size(1 << 20);
  EXPECT_TRUE(CheckWorkload(workload).ok());
}

// Magnitudes past workload_limits.h would overflow int64 arithmetic in the
// engine (an alignment near 2^62 once made the allocator loop forever): each
// is refused, naming the field and the value.
TEST(WorkloadCheckTest, RefusesMagnitudesPastTheLimits) {
  const auto expect_refused = [](const Workload& workload,
                                 const std::string& field,
                                 const std::string& value) {
    const absl::Status status = CheckWorkload(workload);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << field;
    EXPECT_THAT(status.message(), HasSubstr(field + ":"));
    EXPECT_THAT(status.message(), HasSubstr(value));
  };
  Workload workload = TwoStepWorkload();
  workload.set_memory_size(kMaxBytes + 1);
  expect_refused(workload, "memory_size", "281474976710657");
  workload = TwoStepWorkload();
  workload.set_alignment(int64_t{1} << 62);
  expect_refused(workload, "alignment", "4611686018427387904");
  workload.set_alignment(1025);  // past memory_size 1024
  expect_refused(workload, "alignment", "1025");
  workload = TwoStepWorkload();
  workload.mutable_buffers(0)->set_size(int64_t{1} << 62);
  expect_refused(workload, "buffers[0].size", "4611686018427387904");
  workload = TwoStepWorkload();
  workload.mutable_hardware()->set_alignment(-1);
  expect_refused(workload, "hardware.alignment", "-1");
  workload = TwoStepWorkload();
  workload.mutable_instructions(1)->set_name(std::string(kMaxNameLength + 1, 'x'));
  expect_refused(workload, "instructions[1].name", "4097");
  workload = TwoStepWorkload();
  (*workload.mutable_provenance())["source"] = std::string(5000, 'y');
  expect_refused(workload, "provenance[source]", "5000");
  // 2^12 buffers of 2^48 bytes pass 2^60 together.
  workload = TwoStepWorkload();
  workload.mutable_buffers(0)->set_size(kMaxBytes);
  for (int i = 1; i <= 4096; ++i) {
    Buffer* buffer = workload.add_buffers();
    *buffer = workload.buffers(0);
    buffer->set_id(i);
    buffer->set_tensor_id(i);
  }
  expect_refused(workload, "buffers[4096].size", "2^60");
}

// Rates a latency model divides by: a denormal bandwidth (found by the
// workload fuzzer) made copies take "inf" seconds and the heuristic's plan
// invalid; now it is refused, naming the field and the range.
TEST(WorkloadCheckTest, RefusesRatesOutsideTheirRange) {
  Workload workload = TwoStepWorkload();
  workload.mutable_instructions(0)->mutable_roofline()->set_flops(1000);
  HardwareProfile* hw = workload.mutable_hardware();
  hw->set_peak_tflops(137);
  hw->set_fast_bandwidth_gbps(2456);
  hw->set_slow_bandwidth_gbps(614);
  ASSERT_TRUE(CheckWorkload(workload).ok()) << CheckWorkload(workload);
  hw->set_slow_bandwidth_gbps(3.47678664584048e-310);
  absl::Status status = CheckWorkload(workload);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("hardware.slow_bandwidth_gbps:"));
  EXPECT_THAT(status.message(), HasSubstr("[1e-06, 1e+09] GB/s"));
  hw->set_slow_bandwidth_gbps(2e9);
  EXPECT_FALSE(CheckWorkload(workload).ok());
  hw->set_slow_bandwidth_gbps(614);
  hw->set_peak_tflops(1e-300);
  status = CheckWorkload(workload);
  EXPECT_THAT(status.message(), HasSubstr("hardware.peak_tflops:"));
  hw->set_peak_tflops(0);  // none: static and measured latencies only
  status = CheckWorkload(workload);
  EXPECT_THAT(status.message(), HasSubstr("needs hardware.peak_tflops > 0"));
}

TEST(WorkloadCheckTest, AcceptsTheLimitsThemselves) {
  Workload workload = TwoStepWorkload();
  workload.set_memory_size(kMaxBytes);
  workload.set_alignment(kMaxBytes);
  workload.mutable_buffers(0)->set_size(kMaxBytes);
  EXPECT_TRUE(CheckWorkload(workload).ok()) << CheckWorkload(workload);
}

TEST(WorkloadCheckTest, MeasuredTableNeedsTwoToTheKEntries) {
  Workload workload = TwoStepWorkload();
  MeasuredLatency* measured =
      workload.mutable_instructions(1)->mutable_measured();
  measured->add_buffer_ids(0);
  measured->add_latency_us(3.0);
  EXPECT_THAT(CheckWorkload(workload).message(),
              HasSubstr("instructions[1].measured.latency_us: needs 2^1 = 2"));
  measured->add_latency_us(1.0);
  EXPECT_TRUE(CheckWorkload(workload).ok());
}

}  // namespace
}  // namespace mmapzero
