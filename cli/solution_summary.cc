#include "cli/solution_summary.h"

#include <map>

#include "absl/strings/str_format.h"
#include "common/workload/proto_io.h"

namespace mmapzero::cli {

void PrintSolutionSummary(const game::Program& program, const Solution& solution,
                          bool json, std::ostream& out) {
  std::map<Action, int> counts;
  for (const BufferDecision& d : solution.decisions()) ++counts[d.action()];
  const double all_slow = program.empty_latency_us();
  const double speedup =
      solution.latency_us() > 0 ? all_slow / solution.latency_us() : 0.0;
  if (json) {
    out << absl::StrFormat(
        "{\"workload\": \"%s\", \"solver\": \"%s\", \"buffers\": %d, "
        "\"copy\": %d, \"no_copy\": %d, \"drop\": %d, \"return_us\": %.6f, "
        "\"normalised_return\": %.6f, \"latency_us\": %.6f, "
        "\"all_slow_latency_us\": %.6f, \"speedup\": %.6f, "
        "\"drop_backups\": %d, \"wall_seconds\": %.3f}\n",
        solution.workload_name(), solution.solver().name(),
        solution.decisions_size(), counts[COPY], counts[NO_COPY], counts[DROP],
        solution.return_us(), solution.normalised_return(),
        solution.latency_us(), all_slow, speedup, solution.drop_backups(),
        solution.solver().wall_seconds());
    return;
  }
  out << absl::StrFormat("workload           %s\n", solution.workload_name());
  out << absl::StrFormat("solver             %s", solution.solver().name());
  for (const auto& [key, value] : solution.solver().settings()) {
    out << absl::StrFormat(" %s=%s", key, value);
  }
  out << "\n";
  out << absl::StrFormat("buffers            %d (copy %d, no-copy %d, drop %d)\n",
                         solution.decisions_size(), counts[COPY],
                         counts[NO_COPY], counts[DROP]);
  out << absl::StrFormat("return             %.3f us\n", solution.return_us());
  out << absl::StrFormat("normalised return  %.4f\n",
                         solution.normalised_return());
  out << absl::StrFormat("latency            %.3f us (all-slow %.3f us)\n",
                         solution.latency_us(), all_slow);
  out << absl::StrFormat("speed-up           %.4fx over all-slow\n", speedup);
  out << absl::StrFormat("drop-backups       %d\n", solution.drop_backups());
  out << absl::StrFormat("wall time          %.3f s\n",
                         solution.solver().wall_seconds());
}

}  // namespace mmapzero::cli
