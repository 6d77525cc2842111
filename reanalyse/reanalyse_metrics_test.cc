#include "reanalyse/reanalyse_metrics.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::reanalyse {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ReanalyseMetricsTest, AJobsSeriesGoWhenTheWorkerForgetsIt) {
  absl::StatusOr<std::unique_ptr<ReanalyseMetrics>> metrics =
      ReanalyseMetrics::Start("");
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  ReanalyseMetrics& m = **metrics;
  m.AddRound("job-1", 4, 120, 1);
  m.SetParameters("job-1", 10, 25);
  m.AddRound("job-2", 2, 60, 0);
  const std::string text = m.Text();
  EXPECT_THAT(
      text,
      HasSubstr(R"(mmapzero_reanalyse_trajectories_total{job="job-1"} 4)"));
  EXPECT_THAT(text,
              HasSubstr(R"(mmapzero_reanalyse_parameter_lag{job="job-1"} 15)"));

  m.ForgetJob("job-1");
  const std::string after = m.Text();
  EXPECT_THAT(after, Not(HasSubstr("job-1"))) << after;
  EXPECT_THAT(after,
              HasSubstr(R"(mmapzero_reanalyse_steps_total{job="job-2"} 60)"));
}

}  // namespace
}  // namespace mmapzero::reanalyse
