#include "common/validate/report_json.h"

#include <charconv>
#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/base/json_quoted.h"

namespace mmapzero::validate {
namespace {

// Shortest text that reads back as the same double; null when not finite.
std::string Number(double value) {
  if (!std::isfinite(value)) return "null";
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

// An object's members, written one per line at `indent`.
class JsonObject {
 public:
  JsonObject& Raw(std::string_view key, std::string json) {
    members_.emplace_back(std::string(key), std::move(json));
    return *this;
  }
  JsonObject& Num(std::string_view key, double value) {
    return Raw(key, Number(value));
  }
  JsonObject& Int(std::string_view key, int64_t value) {
    return Raw(key, absl::StrCat(value));
  }
  JsonObject& Bool(std::string_view key, bool value) {
    return Raw(key, value ? "true" : "false");
  }
  JsonObject& Str(std::string_view key, std::string_view value) {
    return Raw(key, JsonQuoted(value));
  }

  std::string Inline() const {
    std::vector<std::string> parts;
    for (const auto& [key, json] : members_) {
      parts.push_back(absl::StrCat(JsonQuoted(key), ": ", json));
    }
    return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
  }

  std::string Multiline(int indent) const {
    const std::string pad(indent + 2, ' ');
    std::vector<std::string> parts;
    for (const auto& [key, json] : members_) {
      parts.push_back(absl::StrCat(pad, JsonQuoted(key), ": ", json));
    }
    return absl::StrCat("{\n", absl::StrJoin(parts, ",\n"), "\n",
                        std::string(indent, ' '), "}");
  }

 private:
  std::vector<std::pair<std::string, std::string>> members_;
};

// A list of violations, one per line at `indent` + 2.
std::string ViolationList(const std::vector<Violation>& violations,
                          int max_count, int indent) {
  if (violations.empty() || max_count == 0) return "[]";
  const std::string pad(indent + 2, ' ');
  std::vector<std::string> items;
  for (const Violation& v : violations) {
    if (max_count >= 0 && static_cast<int>(items.size()) >= max_count) break;
    items.push_back(absl::StrCat(pad, JsonObject()
                                          .Int("buffer_id", v.buffer_id)
                                          .Str("rule", v.rule)
                                          .Str("message", v.message)
                                          .Inline()));
  }
  return absl::StrCat("[\n", absl::StrJoin(items, ",\n"), "\n",
                      std::string(indent, ' '), "]");
}

std::string Actions(const ActionCounts& actions) {
  return JsonObject()
      .Int("copy", actions.copy)
      .Int("no_copy", actions.no_copy)
      .Int("drop", actions.drop)
      .Inline();
}

}  // namespace

std::string ValidationReportToJson(const ValidationReport& report,
                                   int max_violations) {
  return JsonObject()
             .Bool("valid", report.ok)
             .Int("num_violations",
                  static_cast<int64_t>(report.violations.size()))
             .Raw("violations",
                  ViolationList(report.violations, max_violations, 2))
             .Raw("warnings", ViolationList(report.warnings, -1, 2))
             .Raw("actions", Actions(report.actions))
             .Num("return_us", report.return_us)
             .Num("normalised_return", report.normalised_return)
             .Num("latency_us", report.latency_us)
             .Num("all_slow_latency_us", report.all_slow_latency_us)
             .Num("all_fast_latency_us", report.all_fast_latency_us)
             .Multiline(0) +
         "\n";
}

std::string EvaluationToJson(const Evaluation& evaluation) {
  const ValidationReport& report = evaluation.validation;
  const SimulationResult& simulation = evaluation.simulation;
  return JsonObject()
             .Num("return_us", report.return_us)
             .Num("normalised_return", report.normalised_return)
             .Num("modelled_latency_us", report.latency_us)
             .Num("simulated_latency_us", simulation.latency_us)
             .Num("stall_us", simulation.stall_us)
             .Num("final_drain_us", simulation.final_drain_us)
             .Num("dma_busy_us", simulation.dma_busy_us)
             .Int("num_prefetches", simulation.num_prefetches)
             .Int("num_write_backs", simulation.num_write_backs)
             .Num("all_slow_latency_us", report.all_slow_latency_us)
             .Num("all_fast_latency_us", report.all_fast_latency_us)
             .Num("speedup_modelled", evaluation.speedup_modelled)
             .Num("speedup_simulated", evaluation.speedup_simulated)
             .Raw("actions", Actions(report.actions))
             .Raw("warnings", ViolationList(report.warnings, -1, 2))
             .Multiline(0) +
         "\n";
}

}  // namespace mmapzero::validate
