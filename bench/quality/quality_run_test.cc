#include "bench/quality/quality_run.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/quality/quality_report.h"
#include "bench/quality/quality_workloads.h"
#include "common/workload/hardware_profiles.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::bench {
namespace {

using ::testing::HasSubstr;

QualityWorkloadOptions Mlp300Only() {
  QualityWorkloadOptions options;
  options.hardware = *HardwareProfileByName("tpu-v4i");
  options.hlo_dir = "/nonexistent-hlo-dir";
  options.only = {"mlp-300"};
  return options;
}

TEST(QualityWorkloadsTest, MissingHloDirIsANoteAndGeneratedWorkloadsLoad) {
  std::vector<std::string> notes;
  const std::vector<QualityWorkload> workloads =
      LoadQualityWorkloads(Mlp300Only(), &notes);
  ASSERT_EQ(workloads.size(), 1u);
  EXPECT_EQ(workloads[0].name, "mlp-300");
  EXPECT_EQ(workloads[0].workload.hardware().name(), "tpu-v4i");
  EXPECT_NEAR(workloads[0].program->num_buffers(), 300, 2);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_THAT(notes[0], HasSubstr("/nonexistent-hlo-dir"));
}

TEST(QualityRunTest, DropAllRowIsValidAndSlowerThanAnyPlacement) {
  std::vector<std::string> notes;
  const std::vector<QualityWorkload> workloads =
      LoadQualityWorkloads(Mlp300Only(), &notes);
  ASSERT_EQ(workloads.size(), 1u);
  QualityRunOptions options;
  options.wall_time = absl::Milliseconds(200);
  options.threads = 1;
  const QualityRow row =
      RunQualityCell("drop-all", workloads[0], options, nullptr);
  ASSERT_EQ(row.status, RunStatus::kOk) << row.message;
  EXPECT_EQ(row.normalised_return, 0);
  // Everything from slow memory: the all-slow latency, no stalls.
  EXPECT_DOUBLE_EQ(row.modelled_latency_us, row.all_slow_latency_us);
  EXPECT_DOUBLE_EQ(row.simulated_latency_us, row.modelled_latency_us);
}

TEST(QualityRunTest, UnknownSolverIsAFailedRowNotACrash) {
  std::vector<std::string> notes;
  const std::vector<QualityWorkload> workloads =
      LoadQualityWorkloads(Mlp300Only(), &notes);
  ASSERT_EQ(workloads.size(), 1u);
  const QualityRow row =
      RunQualityCell("no-such-solver", workloads[0], {}, nullptr);
  EXPECT_EQ(row.status, RunStatus::kFailed);
  EXPECT_THAT(row.message, HasSubstr("no-such-solver"));
}

TEST(QualityRunTest, SpeedUpIsHeuristicLatencyOverSolverLatency) {
  std::vector<QualityRow> rows(4);
  rows[0].workload = rows[1].workload = "w";
  rows[0].solver = "heuristic";
  rows[0].simulated_latency_us = 120;
  rows[0].modelled_latency_us = 100;
  rows[1].solver = "es";
  rows[1].simulated_latency_us = 60;
  rows[1].modelled_latency_us = 80;
  rows[2].workload = "v";  // no heuristic on this workload
  rows[2].solver = "es";
  rows[2].simulated_latency_us = 10;
  rows[3].workload = "w";  // failed: no figures
  rows[3].solver = "brkga";
  rows[3].status = RunStatus::kFailed;
  FillSpeedUps(rows);
  EXPECT_DOUBLE_EQ(rows[0].speedup_over_heuristic, 1.0);
  EXPECT_DOUBLE_EQ(rows[1].speedup_over_heuristic, 2.0);
  EXPECT_DOUBLE_EQ(rows[1].speedup_over_heuristic_modelled, 1.25);
  EXPECT_EQ(rows[2].speedup_over_heuristic, 0);
  EXPECT_EQ(rows[3].speedup_over_heuristic, 0);
}

TEST(QualityReportTest, ConvergenceCsvHasAHeaderAndOneLinePerPoint) {
  const std::string path =
      (std::filesystem::path(::testing::TempDir()) / "convergence.csv")
          .string();
  ASSERT_TRUE(WriteConvergenceCsv(path, {{"w", "es", 1.5, 10, 0.25},
                                         {"w", "muzero", 2.0, 20, 0.5, 0.375}})
                  .ok());
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(),
            "solver,workload,elapsed_seconds,evaluations,"
            "best_normalised_return,recent_normalised_return\n"
            "es,w,1.500,10,0.250000,\n"
            "muzero,w,2.000,20,0.500000,0.375000\n");
}

// The markdown table as PrintQualityMarkdown writes it for `rows`.
std::string Markdown(const std::vector<QualityRow>& rows) {
  char* buffer = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  PrintQualityMarkdown(QualityContext{}, rows, {}, out);
  std::fclose(out);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

TEST(QualityReportTest, BoundAndGapColumnsOnlyWhenABoundWasComputed) {
  QualityRow row;
  row.workload = "mlp-300";
  row.solver = "brkga";
  row.normalised_return = 0.5;
  EXPECT_THAT(Markdown({row}), ::testing::Not(HasSubstr("bound")));
  row.bound = 0.75;
  QualityRow unbounded = row;
  unbounded.workload = "transformer-10000";
  unbounded.bound = -1;  // not computed in time
  const std::string text = Markdown({row, unbounded});
  EXPECT_THAT(text, HasSubstr("| normalised return | bound | gap at most |"));
  EXPECT_THAT(text, HasSubstr("| mlp-300 | 0 | brkga | 0.5000 | 0.7500 | "
                              "0.2500 |"));
  EXPECT_THAT(text, HasSubstr("| transformer-10000 | 0 | brkga | 0.5000 | – | "
                              "– |"));
}

}  // namespace
}  // namespace mmapzero::bench
