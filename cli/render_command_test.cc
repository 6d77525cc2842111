#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/commands.h"
#include "common/workload/proto_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::cli {
namespace {

using ::testing::HasSubstr;

// Three steps, 1 KiB of memory, two buffers of one tensor.
Workload TinyWorkload() {
  Workload workload;
  workload.set_name("tiny");
  workload.set_memory_size(1024);
  for (int t = 0; t < 3; ++t) workload.add_instructions()->set_supply_us(1);
  for (int t : {1, 2}) {
    Buffer* buffer = workload.add_buffers();
    buffer->set_id(workload.buffers_size() - 1);
    buffer->set_size(256);
    buffer->set_target_time(t);
    buffer->set_tensor_id(0);
    buffer->set_tensor_name("weights");
    buffer->mutable_live_range()->set_start(0);
    buffer->mutable_live_range()->set_end(2);
    buffer->set_demand_us(0.5);
    buffer->set_benefit_us(1.0);
  }
  return workload;
}

// Buffer 0 prefetched during step 0 into [0, 256) over [0, 1]; buffer 1
// stays there over (1, 2].
Solution TinySolution() {
  Solution solution;
  solution.set_workload_name("tiny");
  solution.mutable_solver()->set_name("by-hand");
  BufferDecision* copy = solution.add_decisions();
  copy->set_buffer_id(0);
  copy->set_action(COPY);
  copy->set_offset(0);
  copy->set_interval_start(0);
  copy->set_interval_end(1);
  copy->set_copy_start(0);
  copy->set_copy_end(0);
  BufferDecision* stay = solution.add_decisions();
  stay->set_buffer_id(1);
  stay->set_action(NO_COPY);
  stay->set_offset(0);
  stay->set_interval_start(2);
  stay->set_interval_end(2);
  return solution;
}

class RenderCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::path(::testing::TempDir()) /
        ("render_" +
         std::string(
             ::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    workload_path_ = (dir_ / "workload.json").string();
    solution_path_ = (dir_ / "solution.json").string();
    svg_path_ = (dir_ / "layout.svg").string();
    ASSERT_TRUE(WriteProtoFile(workload_path_, TinyWorkload()).ok());
    ASSERT_TRUE(WriteProtoFile(solution_path_, TinySolution()).ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static absl::Status Run(const Args& args) {
    ::testing::internal::CaptureStdout();
    const absl::Status status = RunRender(args);
    ::testing::internal::GetCapturedStdout();
    return status;
  }

  static std::string ReadFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream contents;
    contents << in.rdbuf();
    return contents.str();
  }

  std::filesystem::path dir_;
  std::string workload_path_;
  std::string solution_path_;
  std::string svg_path_;
};

TEST_F(RenderCommandTest, WritesTheSvgFile) {
  const absl::Status status =
      Run({workload_path_, solution_path_, "--out", svg_path_, "--width", "900",
           "--height", "500", "--legend", "3"});
  ASSERT_TRUE(status.ok()) << status;
  const std::string svg = ReadFile(svg_path_);
  EXPECT_THAT(svg, HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                             "width=\"900\" height=\"500\""));
  EXPECT_THAT(svg, HasSubstr("tiny \u2014 by-hand"));
  EXPECT_THAT(svg, HasSubstr(">weights</text>"));
  EXPECT_THAT(svg, HasSubstr("</svg>\n"));
  EXPECT_FALSE(std::filesystem::exists(svg_path_ + ".tmp"));
}

TEST_F(RenderCommandTest, BadDecisionIsAnErrorAndWritesNothing) {
  Solution solution = TinySolution();
  solution.mutable_decisions(1)->set_buffer_id(7);
  ASSERT_TRUE(WriteProtoFile(solution_path_, solution).ok());
  const absl::Status status =
      Run({workload_path_, solution_path_, "--out", svg_path_});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr(solution_path_));
  EXPECT_THAT(status.message(),
              HasSubstr("decisions[1].buffer_id: no buffer with id 7"));
  EXPECT_FALSE(std::filesystem::exists(svg_path_));
  EXPECT_FALSE(std::filesystem::exists(svg_path_ + ".tmp"));
}

TEST_F(RenderCommandTest, FlagsAreChecked) {
  EXPECT_THAT(Run({workload_path_, solution_path_}).message(),
              HasSubstr("--out is required"));
  EXPECT_THAT(
      Run({workload_path_, solution_path_, "--out", svg_path_, "--width", "10"})
          .message(),
      HasSubstr("--width: must be in ["));
  EXPECT_THAT(Run({workload_path_, solution_path_, "--out", svg_path_,
                   "--legend", "many"})
                  .message(),
              HasSubstr("--legend: not an integer"));
  EXPECT_THAT(Run({workload_path_, "--out", svg_path_}).message(),
              HasSubstr("usage: mmapctl render"));
  EXPECT_FALSE(std::filesystem::exists(svg_path_));
}

}  // namespace
}  // namespace mmapzero::cli
