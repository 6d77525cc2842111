#include "common/validate/faster_solution.h"

#include "common/validate/tiny_workloads_for_test.h"
#include "gtest/gtest.h"

namespace mmapzero::validate {
namespace {

Solution With(double latency_us, double normalised_return) {
  Solution solution;
  solution.set_simulated_latency_us(latency_us);
  solution.set_normalised_return(normalised_return);
  return solution;
}

TEST(FasterSolutionTest, LowerSimulatedLatencyWinsWhateverTheReturn) {
  EXPECT_TRUE(FasterThan(With(90, 0.2), With(100, 0.8)));
  EXPECT_FALSE(FasterThan(With(100, 0.8), With(90, 0.2)));
}

TEST(FasterSolutionTest, ATieInLatencyGoesToTheHigherReturn) {
  EXPECT_TRUE(FasterThan(With(100, 0.6), With(100 * (1 + 1e-12), 0.5)));
  EXPECT_FALSE(FasterThan(With(100, 0.5), With(100, 0.6)));
  EXPECT_FALSE(FasterThan(With(100, 0.5), With(100, 0.5)));  // strict
}

TEST(FasterSolutionTest, WithoutASimulatedFigureTheReturnDecides) {
  EXPECT_TRUE(FasterThan(With(0, 0.6), With(50, 0.5)));
  EXPECT_FALSE(FasterThan(With(0, 0.4), With(50, 0.5)));
}

// FourStepSolution simulates to 8 us (latency_simulator_test.cc).
TEST(FasterSolutionTest, WithSimulatedLatencySetsTheSimulatorsFigure) {
  const absl::StatusOr<Solution> simulated =
      WithSimulatedLatency(tiny::FourStepWorkload(), tiny::FourStepSolution());
  ASSERT_TRUE(simulated.ok()) << simulated.status();
  EXPECT_DOUBLE_EQ(simulated->simulated_latency_us(), 8.0);
}

}  // namespace
}  // namespace mmapzero::validate
