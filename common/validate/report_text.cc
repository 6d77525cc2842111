#include "common/validate/report_text.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace mmapzero::validate {
namespace {

std::string Us(double value) { return absl::StrFormat("%.3f us", value); }

std::string Ratio(double value) {
  return std::isfinite(value) ? absl::StrFormat("%.4fx", value) : "inf";
}

std::string Plural(int count, const char* one, const char* many) {
  return absl::StrCat(count, " ", count == 1 ? one : many);
}

// "  label   value" lines with the values in one column.
std::string Rows(const std::vector<std::pair<std::string, std::string>>& rows) {
  size_t width = 0;
  for (const auto& row : rows) width = std::max(width, row.first.size());
  std::string out;
  for (const auto& [label, value] : rows) {
    absl::StrAppend(&out, "  ", label,
                    std::string(width - label.size() + 2, ' '), value, "\n");
  }
  return out;
}

std::string Warnings(const std::vector<Violation>& warnings) {
  std::string out;
  for (const Violation& warning : warnings) {
    absl::StrAppend(&out, "warning: ", FormatViolation(warning), "\n");
  }
  return out;
}

std::string ViolationTable(const std::vector<Violation>& violations,
                           int max_violations) {
  const int total = static_cast<int>(violations.size());
  const int shown =
      max_violations < 0 ? total : std::min(total, max_violations);
  size_t rule_width = 4;
  for (int i = 0; i < shown; ++i) {
    rule_width = std::max(rule_width, violations[i].rule.size());
  }
  std::string out =
      absl::StrFormat("  %6s  %-*s  %s\n", "buffer",
                      static_cast<int>(rule_width), "rule", "message");
  for (int i = 0; i < shown; ++i) {
    const Violation& v = violations[i];
    absl::StrAppend(
        &out, absl::StrFormat("  %6s  %-*s  %s\n",
                              v.buffer_id < 0 ? "-" : absl::StrCat(v.buffer_id),
                              static_cast<int>(rule_width), v.rule, v.message));
  }
  if (shown < total) {
    absl::StrAppend(&out, "  ... and ", total - shown, " more\n");
  }
  return out;
}

std::string Decisions(const ActionCounts& actions) {
  return absl::StrCat(actions.copy, " copy, ", actions.no_copy, " no-copy, ",
                      actions.drop, " drop");
}

}  // namespace

std::string ValidationReportToText(const ValidationReport& report,
                                   int max_violations) {
  std::string out;
  if (report.ok) {
    out = "VALID\n";
  } else {
    const int total = static_cast<int>(report.violations.size());
    out =
        absl::StrCat("INVALID (", Plural(total, "violation", "violations"),
                     ")\n", ViolationTable(report.violations, max_violations));
  }
  absl::StrAppend(&out, Warnings(report.warnings), "\n");
  absl::StrAppend(&out,
                  Rows({{"decisions", Decisions(report.actions)},
                        {"return", Us(report.return_us)},
                        {"normalised return",
                         absl::StrFormat("%.6f", report.normalised_return)},
                        {"latency", Us(report.latency_us)},
                        {"all-slow latency", Us(report.all_slow_latency_us)},
                        {"all-fast latency", Us(report.all_fast_latency_us)}}));
  return out;
}

std::string EvaluationToText(const Evaluation& evaluation) {
  const ValidationReport& report = evaluation.validation;
  const SimulationResult& simulation = evaluation.simulation;
  const std::string warnings = Warnings(report.warnings);
  return (warnings.empty() ? "" : warnings + "\n") +
         Rows({{"decisions", Decisions(report.actions)},
               {"return", Us(report.return_us)},
               {"normalised return",
                absl::StrFormat("%.6f", report.normalised_return)},
               {"modelled latency", Us(report.latency_us)},
               {"simulated latency", Us(simulation.latency_us)},
               {"stall", absl::StrCat(Us(simulation.stall_us), " (final drain ",
                                      Us(simulation.final_drain_us), ")")},
               {"DMA busy", absl::StrCat(Us(simulation.dma_busy_us), " (",
                                         Plural(simulation.num_prefetches,
                                                "prefetch", "prefetches"),
                                         ", ",
                                         Plural(simulation.num_write_backs,
                                                "write-back", "write-backs"),
                                         ")")},
               {"all-slow latency", Us(report.all_slow_latency_us)},
               {"all-fast latency", Us(report.all_fast_latency_us)},
               {"speed-up (modelled)", Ratio(evaluation.speedup_modelled)},
               {"speed-up (simulated)", Ratio(evaluation.speedup_simulated)}});
}

}  // namespace mmapzero::validate
