#include "cli/workload_summary.h"

#include "absl/strings/str_format.h"
#include "common/workload/workload_stats.h"

namespace mmapzero::cli {
namespace {

std::string Mib(int64_t bytes) {
  return absl::StrFormat("%.1f MiB", static_cast<double>(bytes) / (1 << 20));
}

}  // namespace

std::string WorkloadSummary(const std::string& path, const Workload& workload) {
  const WorkloadStats stats = ComputeWorkloadStats(workload);
  return absl::StrFormat(
      "%s: %s, %d buffers, %d instructions, %d tensors, %d alias groups, "
      "peak live %s = %.2fx memory %s",
      path, workload.name(), stats.num_buffers, stats.num_instructions,
      stats.num_tensors, stats.num_alias_groups, Mib(stats.peak_live_bytes),
      static_cast<double>(stats.peak_live_bytes) /
          static_cast<double>(workload.memory_size()),
      Mib(workload.memory_size()));
}

}  // namespace mmapzero::cli
