// `mmapctl solve` in-process on the bundled small example, writing into a
// temporary directory.
#include <fstream>
#include <sstream>
#include <string>

#include "cli/commands.h"
#include "common/validate/validator.h"
#include "common/workload/proto_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::cli {
namespace {

using ::testing::HasSubstr;

const std::string kSmall =
    std::string(MMAPZERO_SOURCE_DIR) + "/examples/small.json";

class SolveCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string name =
        ::testing::UnitTest::GetInstance()->current_test_info()->name();
    out_path_ = ::testing::TempDir() + "/" + name + "_solution.json";
    svg_path_ = ::testing::TempDir() + "/" + name + "_layout.svg";
    std::remove(out_path_.c_str());
    std::remove(svg_path_.c_str());
  }

  absl::Status Run(const Args& args) {
    ::testing::internal::CaptureStdout();
    ::testing::internal::CaptureStderr();
    const absl::Status status = RunSolve(args);
    out_ = ::testing::internal::GetCapturedStdout();
    err_ = ::testing::internal::GetCapturedStderr();
    return status;
  }

  std::string out_path_;
  std::string svg_path_;
  std::string out_;
  std::string err_;
};

TEST_F(SolveCommandTest, WritesAValidSolutionAndLayout) {
  const absl::Status status =
      Run({kSmall, "--solver", "brkga", "--evaluations", "120", "--threads",
           "2", "--seed", "4", "--set", "population=16", "--set",
           "elite_bias=0.8", "--out", out_path_, "--svg", svg_path_, "--json"});
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(err_, HasSubstr("120 evaluations  best normalised return"));
  EXPECT_THAT(err_, HasSubstr("validated independently: VALID"));
  // The JSON summary says what produced the solution.
  EXPECT_THAT(out_, HasSubstr("\"settings\":{"));
  EXPECT_THAT(out_, HasSubstr("\"population\":\"16\""));
  auto workload = ReadWorkload(kSmall);
  ASSERT_TRUE(workload.ok());
  Solution solution;
  ASSERT_TRUE(ReadProtoFile(out_path_, &solution).ok());
  EXPECT_TRUE(validate::ValidateSolution(*workload, solution).ok);
  EXPECT_EQ(solution.solver().name(), "brkga");
  EXPECT_EQ(solution.solver().settings().at("population"), "16");
  EXPECT_EQ(solution.solver().settings().at("elite_bias"), "0.8");
  EXPECT_EQ(solution.solver().settings().at("seed"), "4");
  std::ifstream svg(svg_path_);
  std::stringstream text;
  text << svg.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr("<svg"));
}

// --bound: the summary ends with the optimality bound and the gap to it.
TEST_F(SolveCommandTest, BoundAddsTheGapToTheOptimalityBound) {
  const std::string workload = ::testing::TempDir() + "/solve_bound_mlp.json";
  ::testing::internal::CaptureStdout();
  ASSERT_TRUE(RunGenerate({"--family", "mlp", "--buffers", "30", "--seed", "3",
                           "--out", workload})
                  .ok());
  ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(Run({workload, "--solver", "heuristic", "--bound"}).ok());
  EXPECT_THAT(out_, HasSubstr("bound              "));
  EXPECT_THAT(out_, HasSubstr("below the optimum"));
  ASSERT_TRUE(Run({workload, "--solver", "heuristic", "--bound", "--json"}).ok());
  EXPECT_THAT(out_, HasSubstr("\"bound_normalised_return\":"));
  EXPECT_THAT(out_, HasSubstr("\"gap\":"));
}

TEST_F(SolveCommandTest, DefaultSolverIsThePortfolio) {
  const absl::Status status =
      Run({kSmall, "--budget", "300ms", "--threads", "1", "--out", out_path_});
  ASSERT_TRUE(status.ok()) << status;
  Solution solution;
  ASSERT_TRUE(ReadProtoFile(out_path_, &solution).ok());
  EXPECT_EQ(solution.solver().name(), "portfolio");
  EXPECT_GT(solution.normalised_return(), 0);
}

TEST_F(SolveCommandTest, ErrorsNameTheFlagAndValue) {
  const std::vector<std::pair<Args, std::string>> bad = {
      {{kSmall, "--budget", "soon"}, "--budget: not a duration: 'soon'"},
      {{kSmall, "--budget", "-1s"}, "--budget: must be > 0"},
      {{kSmall, "--threads", "0"}, "--threads: must be in [1, 1024], got 0"},
      {{kSmall, "--evaluations", "x"}, "--evaluations"},
      {{kSmall, "--solver", "magic"}, "--solver magic: unknown solver 'magic'"},
      {{kSmall, "--solver", "es", "--set", "sigma=big"},
       "es: setting sigma: must be a number"},
      {{kSmall, "--set", "population"}, "--set: expected key=value"},
      {{kSmall, "--solver", "random", "--set", "colour=red"},
       "unknown setting colour=red"},
  };
  for (const auto& [args, message] : bad) {
    const absl::Status status = Run(args);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << message;
    EXPECT_THAT(std::string(status.message()), HasSubstr(message));
  }
  EXPECT_FALSE(std::ifstream(out_path_).good());
}

TEST_F(SolveCommandTest, BudgetAcceptsPlainSecondsAndUnits) {
  for (const char* budget : {"0.2", "200ms"}) {
    EXPECT_TRUE(Run({kSmall, "--solver", "random", "--budget", budget,
                     "--threads", "1"})
                    .ok())
        << budget;
  }
  // --seconds: the old name, kept for scripts.
  EXPECT_TRUE(
      Run({kSmall, "--solver", "drop-all", "--seconds", "1", "--threads", "1"})
          .ok());
  EXPECT_FALSE(Run({kSmall, "--seconds", "1", "--budget", "1s"}).ok());
}

}  // namespace
}  // namespace mmapzero::cli
