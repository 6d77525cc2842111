// The solution summary: a game of a job, which carries no wall time of its
// own, gets no "wall time" line (it read 0.000 s); a solve's does.
#include "cli/solution_summary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "common/workload/example_program_for_tests.h"

namespace mmapzero::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Summary(double wall_seconds) {
  const auto program = SmallExampleProgram();
  EXPECT_NE(program, nullptr);
  Solution solution;
  solution.set_workload_name("small");
  solution.mutable_solver()->set_name("muzero");
  solution.mutable_solver()->set_wall_seconds(wall_seconds);
  std::ostringstream out;
  PrintSolutionSummary(*program, solution, LatencyReport{}, /*json=*/false,
                       out);
  return out.str();
}

TEST(SolutionSummaryTest, WallTimeOnlyWhereTheSolutionHasOne) {
  EXPECT_THAT(Summary(0), Not(HasSubstr("wall time")));
  EXPECT_THAT(Summary(1.5), HasSubstr("wall time          1.500 s\n"));
}

}  // namespace
}  // namespace mmapzero::cli
