#include <filesystem>
#include <string>

#include "cli/commands.h"
#include "common/workload/proto_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace mmapzero::cli {
namespace {

using ::testing::HasSubstr;

// Four steps, 100 bytes of memory; tensor 0 (60 bytes) live [0, 2], tensor 1
// (80 bytes) live [2, 3]: live bytes 60, 60, 140, 80.
Workload TwoTensorWorkload() {
  Workload workload;
  workload.set_name("two-tensors");
  workload.set_memory_size(100);
  for (int t = 0; t < 4; ++t) workload.add_instructions()->set_supply_us(1);
  const struct {
    int64_t size;
    bool is_output;
    int target_time, tensor_id, start, end;
  } buffers[] = {{60, true, 0, 0, 0, 2},
                 {60, false, 2, 0, 0, 2},
                 {80, true, 2, 1, 2, 3},
                 {80, false, 3, 1, 2, 3}};
  for (const auto& spec : buffers) {
    Buffer* buffer = workload.add_buffers();
    buffer->set_id(workload.buffers_size() - 1);
    buffer->set_size(spec.size);
    buffer->set_is_output(spec.is_output);
    buffer->set_target_time(spec.target_time);
    buffer->set_tensor_id(spec.tensor_id);
    buffer->mutable_live_range()->set_start(spec.start);
    buffer->mutable_live_range()->set_end(spec.end);
    buffer->set_demand_us(0.5);
    buffer->set_benefit_us(1.0);
  }
  return workload;
}

class InspectCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::path(::testing::TempDir()) /
        ("inspect_" +
         std::string(
             ::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    workload_path_ = (dir_ / "workload.json").string();
    ASSERT_TRUE(WriteProtoFile(workload_path_, TwoTensorWorkload()).ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs the command, returning what it printed; `status` gets its result.
  static std::string Run(const Args& args, absl::Status* status) {
    ::testing::internal::CaptureStdout();
    *status = RunInspect(args);
    return ::testing::internal::GetCapturedStdout();
  }

  std::filesystem::path dir_;
  std::string workload_path_;
};

TEST_F(InspectCommandTest, PrintsCountsSizesAndPressure) {
  absl::Status status;
  const std::string out = Run({workload_path_}, &status);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(out, HasSubstr("two-tensors"));
  EXPECT_THAT(out,
              HasSubstr("latency models: roofline 0, measured 0, static 4"));
  EXPECT_THAT(out, HasSubstr("operands 2, outputs 2"));
  EXPECT_THAT(out, HasSubstr("peak         140 B at t=2 (1.40x memory_size)"));
  EXPECT_THAT(out, HasSubstr("mean         85 B (0.85x memory_size)"));
  EXPECT_THAT(out, HasSubstr("over memory  1 of 4 steps (25.0%)"));
  EXPECT_THAT(out, HasSubstr("memory_size\n"));  // the chart's memory line
}

TEST_F(InspectCommandTest, PrintsJsonForScripts) {
  absl::Status status;
  const std::string out = Run({workload_path_, "--json"}, &status);
  ASSERT_TRUE(status.ok()) << status;
  const nlohmann::json json = nlohmann::json::parse(out);
  EXPECT_EQ(json["name"], "two-tensors");
  EXPECT_EQ(json["counts"]["tensors"], 2);
  EXPECT_EQ(json["buffer_bytes"]["total"], 280);
  EXPECT_EQ(json["tensor_bytes"]["median"], 60);
  EXPECT_EQ(json["pressure"]["peak_bytes"], 140);
  EXPECT_DOUBLE_EQ(json["pressure"]["mean_bytes"].get<double>(), 85.0);
  EXPECT_EQ(json["pressure"]["live_bytes"],
            nlohmann::json::array({60, 60, 140, 80}));
}

TEST_F(InspectCommandTest, MissingFileIsAnErrorNamingIt) {
  absl::Status status;
  const std::string missing = (dir_ / "nope.json").string();
  const std::string out = Run({missing}, &status);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr(missing));
  EXPECT_EQ(out, "");
}

TEST_F(InspectCommandTest, InvalidWorkloadIsAnErrorNamingTheField) {
  Workload workload = TwoTensorWorkload();
  workload.mutable_buffers(1)->set_size(-3);
  ASSERT_TRUE(WriteProtoFile(workload_path_, workload).ok());
  absl::Status status;
  Run({workload_path_}, &status);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("buffers[1].size"));
}

TEST_F(InspectCommandTest, WrongArgumentsAreUsageErrors) {
  absl::Status status;
  Run({}, &status);
  EXPECT_THAT(status.message(), HasSubstr("usage: mmapctl inspect"));
  Run({workload_path_, "--width", "3"}, &status);
  EXPECT_THAT(status.message(), HasSubstr("unknown flag --width"));
}

}  // namespace
}  // namespace mmapzero::cli
