#include <filesystem>
#include <string>

#include "cli/commands.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace mmapzero::cli {
namespace {

using ::testing::HasSubstr;

const std::string kSmall = MMAPZERO_SOURCE_DIR "/examples/small.json";

std::string Temp(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "bound_command_test";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

// Runs `bound ARGS`; what it printed, or the error's message.
std::string Bound(const Args& args) {
  ::testing::internal::CaptureStdout();
  const absl::Status status = RunBound(args);
  const std::string printed = ::testing::internal::GetCapturedStdout();
  return status.ok() ? printed : std::string(status.message());
}

TEST(BoundCommandTest, PrintsTheBoundAndASolutionsGapToIt) {
  // 40 buffers: past exhaustive search, a small LP.
  const std::string workload = Temp("mlp40.json");
  const std::string solution = Temp("heuristic.json");
  ::testing::internal::CaptureStdout();
  ASSERT_TRUE(RunGenerate({"--family", "mlp", "--buffers", "40", "--seed", "2",
                           "--out", workload})
                  .ok());
  ASSERT_TRUE(RunSolve({workload, "--solver", "heuristic", "--out", solution})
                  .ok());
  ::testing::internal::GetCapturedStdout();

  const std::string printed = Bound({workload, "--solution", solution});
  EXPECT_THAT(printed, HasSubstr("best normalised return <= "));
  EXPECT_THAT(printed, HasSubstr("LP relaxation"));
  EXPECT_THAT(printed, HasSubstr("below the optimum"));
  const nlohmann::json json = nlohmann::json::parse(
      Bound({workload, "--solution", solution, "--json"}));
  EXPECT_FALSE(json["exact"].get<bool>());
  EXPECT_GE(json["gap"].get<double>(), 0.0);
  EXPECT_LE(json["solution_normalised_return"].get<double>(),
            json["bound_normalised_return"].get<double>());
}

TEST(BoundCommandTest, TimeLimitStopsTheRelaxationWithAClearError) {
  // 300 buffers: an LP of seconds, stopped after a tenth of one.
  const std::string workload = Temp("mlp300.json");
  ::testing::internal::CaptureStdout();
  ASSERT_TRUE(RunGenerate({"--family", "mlp", "--buffers", "300", "--seed",
                           "1", "--out", workload})
                  .ok());
  ::testing::internal::GetCapturedStdout();
  const absl::Status status = RunBound({workload, "--time-limit", "0.1"});
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(status.message(), HasSubstr(workload));
  EXPECT_THAT(status.message(), HasSubstr("did not finish in 0.1 s"));
  EXPECT_THAT(Bound({workload, "--time-limit", "-1"}),
              HasSubstr("--time-limit: must be seconds >= 0"));
}

TEST(BoundCommandTest, BadInputNamesTheFile) {
  EXPECT_THAT(Bound({"/nonexistent/w.json"}), HasSubstr("/nonexistent/w.json"));
  EXPECT_THAT(Bound({kSmall, "--solution", "/nonexistent/s.json"}),
              HasSubstr("/nonexistent/s.json"));
  EXPECT_THAT(Bound({}), HasSubstr("bound WORKLOAD"));
}

}  // namespace
}  // namespace mmapzero::cli
