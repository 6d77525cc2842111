#include "bench/quality/quality_report.h"

#include <algorithm>
#include <cmath>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace mmapzero::bench {
namespace {

const char* StatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kOk:
      return "ok";
    case RunStatus::kUnavailable:
      return "unavailable";
    case RunStatus::kFailed:
      return "failed";
    case RunStatus::kInvalid:
      return "INVALID";
  }
  return "?";
}

// Milliseconds with four significant digits.
std::string Ms(double us) { return absl::StrFormat("%.4g", us / 1000); }

std::string Rate(double per_second) {
  if (per_second >= 1000) return absl::StrFormat("%.1fk", per_second / 1000);
  return absl::StrFormat("%.1f", per_second);
}

std::string Ratio(double ratio) {
  if (ratio <= 0) return "–";
  if (std::isinf(ratio)) return "inf";
  return absl::StrFormat("%.3fx", ratio);
}

// JSON has no infinity: null.
std::string JsonNumber(double value) {
  return std::isfinite(value) ? absl::StrFormat("%.9g", value) : "null";
}

std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// "0.7992 | 0.2563": the bound and the row's gap to it; dashes without one.
std::string BoundCells(const QualityRow& r) {
  if (r.bound < 0) return "– | –";
  return absl::StrFormat("%.4f | %.4f", r.bound,
                         std::max(0.0, r.bound - r.normalised_return));
}

}  // namespace

void PrintQualityMarkdown(const QualityContext& context,
                          const std::vector<QualityRow>& rows,
                          const std::vector<std::string>& notes,
                          std::FILE* out) {
  std::fprintf(out,
               "Machine: %s. Hardware profile: %s. Budget: %g s wall per "
               "solver and workload, %d solver thread(s). Load average "
               "(1/5/15 min) at start: %s; at end: %s.\n\n",
               context.machine.c_str(), context.hardware.c_str(),
               context.budget_seconds, context.threads,
               context.load_before.c_str(), context.load_after.c_str());
  // The bound's columns only when some workload has one (--bound-seconds).
  const bool bounds = std::any_of(rows.begin(), rows.end(),
                                  [](const QualityRow& r) { return r.bound >= 0; });
  std::fprintf(out,
               "| workload | buffers | solver | normalised return |%s modelled "
               "latency (ms) | simulated latency (ms) | speed-up over "
               "heuristic (simulated) | (modelled) | wall (s) | evaluations "
               "| evaluations/s |\n",
               bounds ? " bound | gap at most |" : "");
  std::fprintf(out, "|---|---:|---|---:|%s---:|---:|---:|---:|---:|---:|---:|\n",
               bounds ? "---:|---:|" : "");
  for (const QualityRow& r : rows) {
    if (r.status != RunStatus::kOk) continue;
    // A one-game solver's rate only restates its wall time.
    const std::string rate =
        r.evaluations > 1 ? Rate(r.evaluations_per_second()) : "–";
    std::fprintf(
        out, "| %s | %d | %s | %.4f |%s %s | %s | %s | %s | %.2f | %lld | %s |\n",
        r.workload.c_str(), r.buffers, r.solver.c_str(), r.normalised_return,
        bounds ? absl::StrCat(" ", BoundCells(r), " |").c_str() : "",
        Ms(r.modelled_latency_us).c_str(), Ms(r.simulated_latency_us).c_str(),
        Ratio(r.speedup_over_heuristic).c_str(),
        Ratio(r.speedup_over_heuristic_modelled).c_str(), r.wall_seconds,
        static_cast<long long>(r.evaluations), rate.c_str());
  }
  bool first = true;
  for (const QualityRow& r : rows) {
    if (r.status == RunStatus::kOk) continue;
    if (first) std::fprintf(out, "\nNot in the table:\n\n");
    first = false;
    std::fprintf(out, "- %s on %s: %s (%s)\n", r.solver.c_str(),
                 r.workload.c_str(), StatusName(r.status), r.message.c_str());
  }
  if (!notes.empty()) std::fprintf(out, "\nNotes:\n\n");
  for (const std::string& note : notes) {
    std::fprintf(out, "- %s\n", note.c_str());
  }
}

void PrintQualityJson(const QualityContext& context,
                      const std::vector<QualityRow>& rows,
                      const std::vector<std::string>& notes, std::FILE* out) {
  std::fprintf(out,
               "{\"machine\": %s, \"hardware\": %s, \"budget_seconds\": %s, "
               "\"threads\": %d, \"load_before\": %s, \"load_after\": %s,\n"
               " \"rows\": [",
               JsonString(context.machine).c_str(),
               JsonString(context.hardware).c_str(),
               JsonNumber(context.budget_seconds).c_str(), context.threads,
               JsonString(context.load_before).c_str(),
               JsonString(context.load_after).c_str());
  for (size_t i = 0; i < rows.size(); ++i) {
    const QualityRow& r = rows[i];
    std::fprintf(out,
                 "%s\n  {\"workload\": %s, \"buffers\": %d, \"solver\": %s, "
                 "\"status\": \"%s\", \"message\": %s, \"wall_seconds\": %s, "
                 "\"evaluations\": %lld, \"evaluations_per_second\": %s, "
                 "\"normalised_return\": %s, \"modelled_latency_us\": %s, "
                 "\"simulated_latency_us\": %s, \"all_slow_latency_us\": %s, "
                 "\"drop_backups\": %d, \"speedup_over_heuristic\": %s, "
                 "\"speedup_over_heuristic_modelled\": %s, "
                 "\"bound_normalised_return\": %s}",
                 i ? "," : "", JsonString(r.workload).c_str(), r.buffers,
                 JsonString(r.solver).c_str(), StatusName(r.status),
                 JsonString(r.message).c_str(),
                 JsonNumber(r.wall_seconds).c_str(),
                 static_cast<long long>(r.evaluations),
                 JsonNumber(r.evaluations_per_second()).c_str(),
                 JsonNumber(r.normalised_return).c_str(),
                 JsonNumber(r.modelled_latency_us).c_str(),
                 JsonNumber(r.simulated_latency_us).c_str(),
                 JsonNumber(r.all_slow_latency_us).c_str(), r.drop_backups,
                 JsonNumber(r.speedup_over_heuristic).c_str(),
                 JsonNumber(r.speedup_over_heuristic_modelled).c_str(),
                 r.bound < 0 ? "null" : JsonNumber(r.bound).c_str());
  }
  std::fprintf(out, "],\n \"notes\": [");
  for (size_t i = 0; i < notes.size(); ++i) {
    std::fprintf(out, "%s%s", i ? ", " : "", JsonString(notes[i]).c_str());
  }
  std::fprintf(out, "]}\n");
}

absl::Status WriteConvergenceCsv(const std::string& path,
                                 const std::vector<ConvergencePoint>& points) {
  std::ofstream out(path);
  if (!out) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot open for writing"));
  }
  out << "solver,workload,elapsed_seconds,evaluations,best_normalised_return,"
         "recent_normalised_return\n";
  for (const ConvergencePoint& p : points) {
    out << absl::StrFormat("%s,%s,%.3f,%d,%.6f,%s\n", p.solver, p.workload,
                           p.elapsed_seconds, p.evaluations,
                           p.best_normalised_return,
                           p.recent_normalised_return < 0
                               ? std::string()
                               : absl::StrFormat(
                                     "%.6f", p.recent_normalised_return));
  }
  out.close();
  if (!out) return absl::DataLossError(absl::StrCat(path, ": write failed"));
  return absl::OkStatus();
}

}  // namespace mmapzero::bench
