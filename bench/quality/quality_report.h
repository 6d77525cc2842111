// Prints the quality table (Markdown for docs/benchmarks.md, JSON for
// scripts) and writes the convergence points as CSV for
// bench/plot_convergence.py.
#ifndef MMAPZERO_BENCH_QUALITY_QUALITY_REPORT_H_
#define MMAPZERO_BENCH_QUALITY_QUALITY_REPORT_H_

#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "bench/quality/quality_run.h"

namespace mmapzero::bench {

// What the table was measured under, printed above it.
struct QualityContext {
  std::string machine;   // "AMD EPYC ..., 2 cores"
  std::string hardware;  // the profile's name
  double budget_seconds = 0;
  int threads = 0;
  std::string load_before;  // /proc/loadavg at start and end
  std::string load_after;
};

void PrintQualityMarkdown(const QualityContext& context,
                          const std::vector<QualityRow>& rows,
                          const std::vector<std::string>& notes,
                          std::FILE* out);
void PrintQualityJson(const QualityContext& context,
                      const std::vector<QualityRow>& rows,
                      const std::vector<std::string>& notes, std::FILE* out);

// Header: solver,workload,elapsed_seconds,evaluations,best_normalised_return.
absl::Status WriteConvergenceCsv(const std::string& path,
                                 const std::vector<ConvergencePoint>& points);

}  // namespace mmapzero::bench

#endif  // MMAPZERO_BENCH_QUALITY_QUALITY_REPORT_H_
