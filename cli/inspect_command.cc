// `mmapctl inspect WORKLOAD [--json]`: what a workload looks like before
// anyone plays it (common/workload/workload_stats.h), as an aligned report
// with a text chart of the memory pressure, or as one JSON object.
#include <algorithm>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "common/base/status_macros.h"
#include "common/workload/proto_io.h"
#include "common/workload/workload_stats.h"
#include "nlohmann/json.hpp"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] = "inspect WORKLOAD [--json]";
constexpr int kChartColumns = 60;
constexpr int kChartRows = 10;

std::string Bytes(int64_t bytes) {
  if (bytes < 1024) return absl::StrCat(bytes, " B");
  const char* unit = "KiB";
  double value = static_cast<double>(bytes) / 1024;
  if (value >= 1024) value /= 1024, unit = "MiB";
  if (value >= 1024) value /= 1024, unit = "GiB";
  if (value >= 1024) value /= 1024, unit = "TiB";
  return absl::StrFormat("%.2f %s", value, unit);
}

std::string Percent(double fraction) {
  return absl::StrFormat("%.1f%%", 100 * fraction);
}

double Ratio(double bytes, int64_t memory_size) {
  return memory_size > 0 ? bytes / static_cast<double>(memory_size) : 0;
}

std::string Provenance(const Workload& workload) {
  const std::map<std::string, std::string> sorted(workload.provenance().begin(),
                                                  workload.provenance().end());
  return absl::StrJoin(sorted, ", ", absl::PairFormatter("="));
}

void PrintOverview(const Workload& workload, const WorkloadStats& stats,
                   std::ostream& out) {
  out << absl::StrFormat(
      "%-14s %s\n", "workload",
      workload.name().empty() ? "(unnamed)" : workload.name());
  if (!workload.hardware().name().empty()) {
    out << absl::StrFormat("%-14s %s\n", "hardware",
                           workload.hardware().name());
  }
  if (!workload.provenance().empty()) {
    out << absl::StrFormat("%-14s %s\n", "provenance", Provenance(workload));
  }
  out << absl::StrFormat("%-14s %s (%d bytes), alignment %d\n\n", "memory_size",
                         Bytes(stats.memory_size), stats.memory_size,
                         std::max<int64_t>(1, workload.alignment()));
  out << absl::StrFormat(
      "%-14s %8d   latency models: roofline %d, measured %d, static %d\n",
      "instructions", stats.num_instructions, stats.num_roofline,
      stats.num_measured, stats.num_static);
  out << absl::StrFormat("%-14s %8d   operands %d, outputs %d\n", "buffers",
                         stats.num_buffers, stats.num_operands,
                         stats.num_outputs);
  out << absl::StrFormat("%-14s %8d\n", "tensors", stats.num_tensors);
  out << absl::StrFormat("%-14s %8d   members %d, largest group %d\n\n",
                         "alias groups", stats.num_alias_groups,
                         stats.num_alias_members, stats.largest_alias_group);
}

void PrintSizes(const WorkloadStats& stats, std::ostream& out) {
  out << absl::StrFormat("%-14s %8s %12s %12s %12s %12s\n", "sizes", "count",
                         "min", "median", "max", "total");
  for (const auto& [name, sizes] :
       {std::pair{"  buffers", &stats.buffer_bytes},
        std::pair{"  tensors", &stats.tensor_bytes}}) {
    out << absl::StrFormat("%-14s %8d %12s %12s %12s %12s\n", name,
                           sizes->count, Bytes(sizes->min),
                           Bytes(sizes->median), Bytes(sizes->max),
                           Bytes(sizes->total));
  }
  out << absl::StrFormat(
      "  larger than memory_size: %d buffers, %d tensors (can only be "
      "dropped)\n\n",
      stats.num_buffers_over_memory, stats.num_tensors_over_memory);
}

// The level (1..kChartRows) whose band of bytes holds `bytes`, 0 for none;
// level k holds ((k-1) * top / rows, k * top / rows]. (No overflow below
// 800 PiB.)
int Level(int64_t bytes, int64_t top) {
  if (bytes <= 0 || top <= 0) return 0;
  return static_cast<int>((bytes * kChartRows + top - 1) / top);
}

// Bars of the peak live bytes per bucket of time steps, with a line of '-'
// at the level of memory_size.
void PrintChart(const WorkloadStats& stats, std::ostream& out) {
  const std::vector<int64_t> peaks =
      PeakPerBucket(stats.live_bytes, kChartColumns);
  const int64_t top = std::max(stats.peak_live_bytes, stats.memory_size);
  if (peaks.empty() || top <= 0) return;
  const int memory_level = Level(stats.memory_size, top);
  for (int level = kChartRows; level >= 1; --level) {
    std::string label;
    if (level == memory_level) {
      label = Bytes(stats.memory_size);
    } else if (level == kChartRows) {
      label = Bytes(top);
    }
    std::string row;
    for (int64_t peak : peaks) {
      row += Level(peak, top) >= level ? '#'
             : level == memory_level   ? '-'
                                       : ' ';
    }
    out << absl::StrFormat("  %12s |%s%s\n", label, row,
                           level == memory_level ? " memory_size" : "");
  }
  out << absl::StrFormat("  %12s +%s\n", "0", std::string(peaks.size(), '-'));
  const std::string first = "t=0";
  const std::string last = absl::StrCat("t=", stats.num_instructions - 1);
  const int gap =
      std::max<int>(1, static_cast<int>(peaks.size()) -
                           static_cast<int>(first.size() + last.size()));
  out << absl::StrFormat("  %12s  %s%s%s\n", "", first, std::string(gap, ' '),
                         last);
  const double per_column = static_cast<double>(stats.num_instructions) /
                            static_cast<double>(peaks.size());
  if (per_column > 1) {
    out << absl::StrFormat("  %12s  each column: the peak of %.3g steps\n", "",
                           per_column);
  }
}

void PrintPressure(const WorkloadStats& stats, std::ostream& out) {
  out << "memory pressure (bytes of live tensors per time step)\n";
  out << absl::StrFormat(
      "  %-12s %s at t=%d (%.2fx memory_size)\n", "peak",
      Bytes(stats.peak_live_bytes), stats.peak_time,
      Ratio(static_cast<double>(stats.peak_live_bytes), stats.memory_size));
  out << absl::StrFormat("  %-12s %s (%.2fx memory_size)\n", "mean",
                         Bytes(static_cast<int64_t>(stats.mean_live_bytes)),
                         Ratio(stats.mean_live_bytes, stats.memory_size));
  out << absl::StrFormat("  %-12s %d of %d steps (%s)\n\n", "over memory",
                         stats.steps_over_memory, stats.num_instructions,
                         Percent(stats.fraction_over_memory));
  PrintChart(stats, out);
}

nlohmann::ordered_json SizesJson(const SizeStats& sizes) {
  return {{"count", sizes.count},
          {"min", sizes.min},
          {"median", sizes.median},
          {"max", sizes.max},
          {"total", sizes.total}};
}

nlohmann::ordered_json StatsJson(const Workload& workload,
                                 const WorkloadStats& stats) {
  nlohmann::ordered_json json;
  json["name"] = workload.name();
  json["memory_size"] = stats.memory_size;
  json["alignment"] = std::max<int64_t>(1, workload.alignment());
  json["counts"] = {{"instructions", stats.num_instructions},
                    {"buffers", stats.num_buffers},
                    {"operands", stats.num_operands},
                    {"outputs", stats.num_outputs},
                    {"tensors", stats.num_tensors},
                    {"alias_groups", stats.num_alias_groups},
                    {"alias_members", stats.num_alias_members},
                    {"largest_alias_group", stats.largest_alias_group}};
  json["latency_models"] = {{"roofline", stats.num_roofline},
                            {"measured", stats.num_measured},
                            {"static", stats.num_static}};
  json["buffer_bytes"] = SizesJson(stats.buffer_bytes);
  json["tensor_bytes"] = SizesJson(stats.tensor_bytes);
  json["buffers_over_memory"] = stats.num_buffers_over_memory;
  json["tensors_over_memory"] = stats.num_tensors_over_memory;
  json["pressure"] = {{"peak_bytes", stats.peak_live_bytes},
                      {"peak_time", stats.peak_time},
                      {"mean_bytes", stats.mean_live_bytes},
                      {"steps_over_memory", stats.steps_over_memory},
                      {"fraction_over_memory", stats.fraction_over_memory},
                      {"live_bytes", stats.live_bytes}};
  return json;
}

}  // namespace

absl::Status RunInspect(const Args& args) {
  ASSIGN_OR_RETURN(const CommandLine line,
                   CommandLine::Parse(args, /*value_flags=*/{},
                                      /*bool_flags=*/{"json"}));
  RETURN_IF_ERROR(line.ExpectPositional(1, kUsage));
  ASSIGN_OR_RETURN(const Workload workload, ReadWorkload(line.positional()[0]));
  const WorkloadStats stats = ComputeWorkloadStats(workload);
  if (line.Has("json")) {
    std::cout << StatsJson(workload, stats)
                     .dump(2, ' ', /*ensure_ascii=*/false,
                           nlohmann::json::error_handler_t::replace)
              << std::endl;
    return absl::OkStatus();
  }
  PrintOverview(workload, stats, std::cout);
  PrintSizes(stats, std::cout);
  PrintPressure(stats, std::cout);
  std::cout.flush();
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
