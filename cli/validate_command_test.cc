// `mmapctl validate` and `mmapctl evaluate` run in-process on files in a
// temporary directory.
#include <string>

#include "cli/commands.h"
#include "common/validate/tiny_workloads_for_test.h"
#include "common/workload/proto_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ValidateCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string dir = ::testing::TempDir();
    const std::string name =
        ::testing::UnitTest::GetInstance()->current_test_info()->name();
    workload_path_ = dir + "/" + name + "_workload.json";
    solution_path_ = dir + "/" + name + "_solution.json";
    ASSERT_TRUE(
        WriteProtoFile(workload_path_, validate::tiny::FourStepWorkload())
            .ok());
    WriteSolution(validate::tiny::FourStepSolution());
  }

  void WriteSolution(const Solution& solution) {
    ASSERT_TRUE(WriteProtoFile(solution_path_, solution).ok());
  }

  // Runs `command` with `args`, returning its status and keeping stdout.
  absl::Status Run(absl::Status (*command)(const Args&), const Args& args) {
    ::testing::internal::CaptureStdout();
    const absl::Status status = command(args);
    out_ = ::testing::internal::GetCapturedStdout();
    return status;
  }

  // The solution with b0 one slot too high (offset 60; the rule gives 50).
  Solution BrokenSolution() {
    Solution solution = validate::tiny::FourStepSolution();
    solution.mutable_decisions(3)->set_offset(60);
    return solution;
  }

  std::string workload_path_;
  std::string solution_path_;
  std::string out_;
};

TEST_F(ValidateCommandTest, PrintsValidAndRecomputedReturn) {
  EXPECT_TRUE(Run(RunValidate, {workload_path_, solution_path_}).ok());
  EXPECT_THAT(out_, HasSubstr("VALID\n"));
  EXPECT_THAT(out_, HasSubstr("return             11.000 us"));
  EXPECT_THAT(out_, HasSubstr("normalised return  0.733333"));
  EXPECT_THAT(out_, HasSubstr("decisions          2 copy, 2 no-copy, 1 drop"));
}

TEST_F(ValidateCommandTest, FailsOnInvalidSolutionListingViolations) {
  WriteSolution(BrokenSolution());
  const absl::Status status =
      Run(RunValidate, {workload_path_, solution_path_});
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("invalid solution (1 violation)"));
  EXPECT_THAT(status.message(), HasSubstr(solution_path_));
  EXPECT_THAT(out_, HasSubstr("INVALID (1 violation)"));
  EXPECT_THAT(out_, HasSubstr("offset_not_lowest"));
  EXPECT_THAT(out_,
              HasSubstr("lowest free aligned offset over steps [0, 2] is 50"));
}

TEST_F(ValidateCommandTest, ShowsTwentyViolationsAndCountsTheRest) {
  // 25 unknown buffers.
  Solution solution = validate::tiny::FourStepSolution();
  for (int i = 0; i < 25; ++i) {
    *solution.add_decisions() = validate::tiny::Drop(100 + i);
  }
  WriteSolution(solution);
  EXPECT_FALSE(Run(RunValidate, {workload_path_, solution_path_}).ok());
  EXPECT_THAT(out_, HasSubstr("INVALID (25 violations)"));
  EXPECT_THAT(out_, HasSubstr("buffer 119"));
  EXPECT_THAT(out_, Not(HasSubstr("buffer 120")));
  EXPECT_THAT(out_, HasSubstr("... and 5 more"));
}

TEST_F(ValidateCommandTest, PrintsJsonForScripts) {
  EXPECT_TRUE(
      Run(RunValidate, {workload_path_, solution_path_, "--json"}).ok());
  EXPECT_THAT(out_, HasSubstr("\"valid\": true"));
  EXPECT_THAT(out_, HasSubstr("\"return_us\": 11"));
  EXPECT_THAT(out_, HasSubstr("\"violations\": []"));
  WriteSolution(BrokenSolution());
  EXPECT_FALSE(
      Run(RunValidate, {workload_path_, solution_path_, "--json"}).ok());
  EXPECT_THAT(out_, HasSubstr("\"valid\": false"));
  EXPECT_THAT(out_,
              HasSubstr("{\"buffer_id\": 0, \"rule\": \"offset_not_lowest\""));
}

TEST_F(ValidateCommandTest, RejectsWrongArgumentsAndNamesMissingFiles) {
  EXPECT_EQ(Run(RunValidate, {workload_path_}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Run(RunValidate, {workload_path_, solution_path_, "--jsn"}).code(),
            absl::StatusCode::kInvalidArgument);
  const absl::Status missing =
      Run(RunValidate, {workload_path_, "/no/such.json"});
  EXPECT_FALSE(missing.ok());
  EXPECT_THAT(missing.message(), HasSubstr("/no/such.json"));
}

TEST_F(ValidateCommandTest, EvaluatePrintsLatenciesAndSpeedUps) {
  EXPECT_TRUE(Run(RunEvaluate, {workload_path_, solution_path_}).ok());
  EXPECT_THAT(out_, HasSubstr("return                11.000 us"));
  EXPECT_THAT(out_, HasSubstr("modelled latency      8.000 us"));
  EXPECT_THAT(out_, HasSubstr("simulated latency     8.000 us"));
  EXPECT_THAT(out_, HasSubstr("all-slow latency      19.000 us"));
  EXPECT_THAT(out_, HasSubstr("speed-up (modelled)   2.3750x"));
  EXPECT_THAT(out_, HasSubstr("speed-up (simulated)  2.3750x"));
  EXPECT_THAT(out_, HasSubstr("1 prefetch, 1 write-back"));
}

TEST_F(ValidateCommandTest, EvaluatePrintsJsonForScripts) {
  EXPECT_TRUE(
      Run(RunEvaluate, {workload_path_, solution_path_, "--json"}).ok());
  EXPECT_THAT(out_, HasSubstr("\"simulated_latency_us\": 8"));
  EXPECT_THAT(out_, HasSubstr("\"speedup_modelled\": 2.375"));
  EXPECT_THAT(out_, HasSubstr("\"normalised_return\": 0.7333333333333333"));
}

// --bound: the tiny program is small enough for the exact optimum, which
// the solution (0.7333) is measured against.
TEST_F(ValidateCommandTest, EvaluateWithBoundGivesTheGapToTheOptimum) {
  EXPECT_TRUE(
      Run(RunEvaluate, {workload_path_, solution_path_, "--bound"}).ok());
  EXPECT_THAT(out_, HasSubstr("best normalised return = "));
  EXPECT_THAT(out_, HasSubstr("(exhaustive search); this solution is at most"));
  EXPECT_TRUE(Run(RunEvaluate,
                  {workload_path_, solution_path_, "--bound", "--json"})
                  .ok());
  EXPECT_THAT(out_, HasSubstr("\"bound_exact\":true"));
  EXPECT_THAT(out_, HasSubstr("\"gap\":"));
}

TEST_F(ValidateCommandTest, EvaluateFailsOnInvalidSolutionNamingWhy) {
  WriteSolution(BrokenSolution());
  const absl::Status status =
      Run(RunEvaluate, {workload_path_, solution_path_});
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr(solution_path_));
  EXPECT_THAT(status.message(), HasSubstr("[offset_not_lowest] buffer 0"));
  EXPECT_EQ(out_, "");
}

}  // namespace
}  // namespace mmapzero::cli
