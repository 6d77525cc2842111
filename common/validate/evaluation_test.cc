#include "common/validate/evaluation.h"

#include <limits>

#include "common/validate/tiny_workloads_for_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::validate {
namespace {

using ::testing::HasSubstr;

TEST(EvaluationTest, SpeedUpIsAllSlowOverLatency) {
  // FourStepSolution: all-slow 19 us, modelled and simulated latency 8 us.
  const absl::StatusOr<Evaluation> evaluation =
      EvaluateSolution(tiny::FourStepWorkload(), tiny::FourStepSolution());
  ASSERT_TRUE(evaluation.ok()) << evaluation.status();
  EXPECT_DOUBLE_EQ(evaluation->speedup_modelled, 19.0 / 8.0);
  EXPECT_DOUBLE_EQ(evaluation->speedup_simulated, 19.0 / 8.0);
  EXPECT_DOUBLE_EQ(evaluation->validation.return_us, 11.0);
  EXPECT_DOUBLE_EQ(evaluation->simulation.latency_us, 8.0);
}

TEST(EvaluationTest, FailsOnInvalidSolutionNamingTheViolation) {
  Solution solution = tiny::FourStepSolution();
  solution.mutable_decisions(3)->set_offset(60);  // b0: lowest is 50
  const absl::StatusOr<Evaluation> evaluation =
      EvaluateSolution(tiny::FourStepWorkload(), solution);
  EXPECT_EQ(evaluation.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(evaluation.status().message(),
              HasSubstr("invalid (1 violation): [offset_not_lowest] buffer 0"));
}

TEST(EvaluationTest, SpeedUpOfEmptyProgramsIsOneOrInfinite) {
  EXPECT_DOUBLE_EQ(SpeedUp(0.0, 0.0), 1.0);
  EXPECT_EQ(SpeedUp(3.0, 0.0), std::numeric_limits<double>::infinity());
}

}  // namespace
}  // namespace mmapzero::validate
