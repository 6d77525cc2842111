#include "common/workload/hardware_profiles.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "common/workload/proto_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMiB = int64_t{1} << 20;

// A file under the test's temporary directory holding `text`.
std::string WriteTempFile(const std::string& name, const std::string& text) {
  const std::string path =
      (std::filesystem::path(::testing::TempDir()) / name).string();
  std::ofstream(path) << text;
  return path;
}

TEST(HardwareProfilesTest, TpuV4iHasPublishedFigures) {
  absl::StatusOr<HardwareProfile> tpu = HardwareProfileByName("tpu-v4i");
  ASSERT_TRUE(tpu.ok());
  EXPECT_EQ(tpu->fast_memory_bytes(), 128 * kMiB);  // CMEM
  EXPECT_DOUBLE_EQ(tpu->peak_tflops(), 137);        // bf16
  EXPECT_DOUBLE_EQ(tpu->slow_bandwidth_gbps(), 614);
  // CMEM bandwidth is not published: the default assumption is 4x HBM.
  EXPECT_DOUBLE_EQ(tpu->fast_bandwidth_gbps(), 4 * 614);
  EXPECT_DOUBLE_EQ(tpu->copy_bandwidth_gbps(), tpu->slow_bandwidth_gbps());
  EXPECT_EQ(tpu->alignment(), 512);
}

TEST(HardwareProfilesTest, H100UsesTheL2SetAsideAsFastMemory) {
  absl::StatusOr<HardwareProfile> gpu = HardwareProfileByName("gpu-h100");
  ASSERT_TRUE(gpu.ok());
  // 75% of the 50 MiB L2: 37.5 MiB.
  EXPECT_EQ(gpu->fast_memory_bytes(), 50 * kMiB * 3 / 4);
  EXPECT_EQ(gpu->fast_memory_bytes(), 39'321'600);
  EXPECT_DOUBLE_EQ(gpu->slow_bandwidth_gbps(), 3350);
  EXPECT_DOUBLE_EQ(gpu->peak_tflops(), 989);
  EXPECT_DOUBLE_EQ(gpu->copy_bandwidth_gbps(), 3350);
  EXPECT_EQ(gpu->alignment(), 128);
}

TEST(HardwareProfilesTest, EveryListedNameResolvesToAValidProfile) {
  const std::vector<std::string> names = HardwareProfileNames();
  EXPECT_THAT(names, ::testing::ElementsAre("tpu-v4i", "gpu-a100", "gpu-h100"));
  for (const std::string& name : names) {
    absl::StatusOr<HardwareProfile> profile = ResolveHardwareProfile(name);
    ASSERT_TRUE(profile.ok()) << name << ": " << profile.status();
    EXPECT_EQ(profile->name(), name);
    EXPECT_TRUE(CheckHardwareProfile(*profile, name).ok()) << name;
    EXPECT_GT(profile->fast_bandwidth_gbps(), profile->slow_bandwidth_gbps());
    EXPECT_GT(profile->alignment(), 1);
  }
}

TEST(HardwareProfilesTest, UnknownNameListsKnownOnes) {
  const absl::Status status = HardwareProfileByName("tpu-v9").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("tpu-v9"));
  EXPECT_THAT(status.message(), HasSubstr("tpu-v4i, gpu-a100"));

  const absl::Status resolved = ResolveHardwareProfile("tpu-v9").status();
  EXPECT_EQ(resolved.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(resolved.message(), HasSubstr("tpu-v9"));
  EXPECT_THAT(resolved.message(), HasSubstr("gpu-h100"));
}

TEST(HardwareProfilesTest, FastBandwidthMultiplierScalesFromHbm) {
  const HardwareProfile tpu = *HardwareProfileByName("tpu-v4i");
  const HardwareProfile scaled = WithFastBandwidthMultiplier(tpu, 8);
  EXPECT_DOUBLE_EQ(scaled.fast_bandwidth_gbps(), 8 * 614);
  EXPECT_DOUBLE_EQ(scaled.slow_bandwidth_gbps(), 614);
  EXPECT_EQ(scaled.name(), "tpu-v4i@fast=8x");

  absl::StatusOr<HardwareProfile> resolved =
      ResolveHardwareProfile("tpu-v4i@fast=1.5x");
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_DOUBLE_EQ(resolved->fast_bandwidth_gbps(), 1.5 * 614);
  EXPECT_EQ(resolved->name(), "tpu-v4i@fast=1.5x");
  EXPECT_EQ(resolved->fast_memory_bytes(), 128 * kMiB);
}

TEST(HardwareProfilesTest, BadFastMultiplierIsAnError) {
  for (const char* spec : {"tpu-v4i@fast=0x", "tpu-v4i@fast=-2",
                           "tpu-v4i@fast=", "tpu-v4i@fast=lots"}) {
    const absl::Status status = ResolveHardwareProfile(spec).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << spec;
    EXPECT_THAT(status.message(), HasSubstr(spec));
  }
}

TEST(HardwareProfilesTest, LoadsAJsonProfileFile) {
  const std::string path = WriteTempFile("accel.json", R"({
    "name": "my-accelerator",
    "peak_tflops": 100,
    "slow_bandwidth_gbps": 800,
    "fast_bandwidth_gbps": 4000,
    "copy_bandwidth_gbps": 600,
    "fast_memory_bytes": "67108864",
    "alignment": "256"
  })");
  absl::StatusOr<HardwareProfile> profile = ResolveHardwareProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->name(), "my-accelerator");
  EXPECT_DOUBLE_EQ(profile->copy_bandwidth_gbps(), 600);
  EXPECT_EQ(profile->fast_memory_bytes(), 64 * kMiB);
  EXPECT_EQ(profile->alignment(), 256);

  absl::StatusOr<HardwareProfile> scaled =
      ResolveHardwareProfile(path + "@fast=2x");
  ASSERT_TRUE(scaled.ok()) << scaled.status();
  EXPECT_DOUBLE_EQ(scaled->fast_bandwidth_gbps(), 1600);
}

TEST(HardwareProfilesTest, LoadsABinaryProfileFileAndNamesItAfterTheFile) {
  HardwareProfile written = *HardwareProfileByName("gpu-h100");
  written.clear_name();
  const std::string path =
      (std::filesystem::path(::testing::TempDir()) / "h100-copy.pb").string();
  ASSERT_TRUE(WriteProtoFile(path, written).ok());
  absl::StatusOr<HardwareProfile> profile = ResolveHardwareProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->name(), "h100-copy");
  EXPECT_DOUBLE_EQ(profile->peak_tflops(), 989);
}

TEST(HardwareProfilesTest, TheShippedExampleLoads) {
  absl::StatusOr<HardwareProfile> profile =
      ResolveHardwareProfile(std::string(MMAPZERO_SOURCE_DIR) +
                             "/examples/hardware/my-accelerator.json");
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->name(), "my-accelerator");
}

TEST(HardwareProfilesTest, BadFileErrorsNameTheFileFieldAndValue) {
  const std::string path = WriteTempFile("bad.json", R"({
    "peak_tflops": 100, "slow_bandwidth_gbps": 800,
    "fast_bandwidth_gbps": -5, "copy_bandwidth_gbps": 600,
    "fast_memory_bytes": "1024"
  })");
  const absl::Status status = ResolveHardwareProfile(path).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr(path));
  EXPECT_THAT(status.message(), HasSubstr("fast_bandwidth_gbps"));
  EXPECT_THAT(status.message(), HasSubstr("-5"));
}

TEST(HardwareProfilesTest, MissingFieldIsReportedAsZero) {
  const std::string path = WriteTempFile("partial.json", R"({
    "peak_tflops": 100, "slow_bandwidth_gbps": 800,
    "fast_bandwidth_gbps": 900, "copy_bandwidth_gbps": 600
  })");
  const absl::Status status = ResolveHardwareProfile(path).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("fast_memory_bytes"));
  EXPECT_THAT(status.message(), HasSubstr("got 0"));
}

TEST(HardwareProfilesTest, UnparsableAndMissingFilesNameTheFile) {
  const std::string typo = WriteTempFile("typo.json", R"({"peak_tflop": 100})");
  const absl::Status unknown = ResolveHardwareProfile(typo).status();
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown.message(), HasSubstr(typo));
  EXPECT_THAT(unknown.message(), HasSubstr("peak_tflop"));

  const absl::Status missing =
      ResolveHardwareProfile("/nonexistent/profile.json").status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.message(), HasSubstr("/nonexistent/profile.json"));
}

TEST(HardwareProfilesTest, NegativeAlignmentIsAnError) {
  HardwareProfile profile = *HardwareProfileByName("tpu-v4i");
  profile.set_alignment(-4);
  const absl::Status status = CheckHardwareProfile(profile, "here");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("here"));
  EXPECT_THAT(status.message(), HasSubstr("alignment"));
  EXPECT_THAT(status.message(), HasSubstr("-4"));
}

}  // namespace
}  // namespace mmapzero
