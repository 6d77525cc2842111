#include "common/workload/hardware_profiles.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero {
namespace {

using ::testing::HasSubstr;

TEST(HardwareProfilesTest, TpuV4iHasCmemAndHbmFigures) {
  absl::StatusOr<HardwareProfile> tpu = HardwareProfileByName("tpu-v4i");
  ASSERT_TRUE(tpu.ok());
  EXPECT_EQ(tpu->fast_memory_bytes(), 128 << 20);
  EXPECT_DOUBLE_EQ(tpu->peak_tflops(), 138);
  EXPECT_DOUBLE_EQ(tpu->slow_bandwidth_gbps(), 614);
  EXPECT_GT(tpu->fast_bandwidth_gbps(), 2 * tpu->slow_bandwidth_gbps());
  EXPECT_DOUBLE_EQ(tpu->copy_bandwidth_gbps(), tpu->slow_bandwidth_gbps());
}

TEST(HardwareProfilesTest, EveryListedNameResolvesToItself) {
  const std::vector<std::string> names = HardwareProfileNames();
  EXPECT_THAT(names, ::testing::Contains("gpu-a100"));
  EXPECT_EQ(names.front(), "tpu-v4i");
  for (const std::string& name : names) {
    absl::StatusOr<HardwareProfile> profile = HardwareProfileByName(name);
    ASSERT_TRUE(profile.ok()) << name;
    EXPECT_EQ(profile->name(), name);
    EXPECT_GT(profile->fast_bandwidth_gbps(), profile->slow_bandwidth_gbps());
    EXPECT_GT(profile->copy_bandwidth_gbps(), 0);
    EXPECT_GT(profile->fast_memory_bytes(), 0);
  }
}

TEST(HardwareProfilesTest, UnknownNameListsKnownOnes) {
  const absl::Status status = HardwareProfileByName("tpu-v9").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("tpu-v9"));
  EXPECT_THAT(status.message(), HasSubstr("tpu-v4i, gpu-a100"));
}

}  // namespace
}  // namespace mmapzero
