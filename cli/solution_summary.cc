#include "cli/solution_summary.h"

#include <map>

#include "absl/strings/str_format.h"
#include "cli/bound_report.h"
#include "nlohmann/json.hpp"

namespace mmapzero::cli {

void PrintSolutionSummary(const game::Program& program, const Solution& solution,
                          const LatencyReport& latency, bool json,
                          std::ostream& out,
                          const bound::OptimalityBound* bound) {
  std::map<Action, int> counts;
  for (const BufferDecision& d : solution.decisions()) ++counts[d.action()];
  const double all_slow = program.empty_latency_us();
  const double speedup =
      solution.latency_us() > 0 ? all_slow / solution.latency_us() : 0.0;
  if (json) {
    nlohmann::ordered_json summary = {
        {"workload", solution.workload_name()},
        {"solver", solution.solver().name()},
        {"buffers", solution.decisions_size()},
        {"simulated_latency_us", latency.simulated_latency_us},
        {"heuristic_latency_us", latency.heuristic_latency_us},
        {"speedup_over_heuristic", latency.speedup_over_heuristic},
        {"copy", counts[COPY]},
        {"no_copy", counts[NO_COPY]},
        {"drop", counts[DROP]},
        {"return_us", solution.return_us()},
        {"normalised_return", solution.normalised_return()},
        {"latency_us", solution.latency_us()},
        {"all_slow_latency_us", all_slow},
        {"speedup", speedup},
        {"drop_backups", solution.drop_backups()},
        {"wall_seconds", solution.solver().wall_seconds()}};
    // What produced it (e.g. which part of a combination found the best).
    std::map<std::string, std::string> settings(
        solution.solver().settings().begin(),
        solution.solver().settings().end());
    summary["settings"] = settings;
    if (bound != nullptr) {
      AddBoundFields(*bound, solution.normalised_return(), summary);
    }
    out << summary.dump(-1, ' ', false,
                        nlohmann::json::error_handler_t::replace)
        << "\n";
    return;
  }
  out << absl::StrFormat("workload           %s\n", solution.workload_name());
  out << absl::StrFormat("solver             %s", solution.solver().name());
  for (const auto& [key, value] : solution.solver().settings()) {
    out << absl::StrFormat(" %s=%s", key, value);
  }
  out << "\n";
  out << absl::StrFormat("latency            %s simulated (heuristic %s)\n",
                         FormatLatency(latency.simulated_latency_us),
                         FormatLatency(latency.heuristic_latency_us));
  out << absl::StrFormat("speed-up           %.4fx over the heuristic\n",
                         latency.speedup_over_heuristic);
  out << absl::StrFormat("buffers            %d (copy %d, no-copy %d, drop %d)\n",
                         solution.decisions_size(), counts[COPY],
                         counts[NO_COPY], counts[DROP]);
  out << absl::StrFormat("return             %.3f us\n", solution.return_us());
  out << absl::StrFormat("normalised return  %.4f\n",
                         solution.normalised_return());
  out << absl::StrFormat("modelled latency   %.3f us (all-slow %.3f us, "
                         "%.4fx)\n",
                         solution.latency_us(), all_slow, speedup);
  out << absl::StrFormat("drop-backups       %d\n", solution.drop_backups());
  // A game of a job carries no wall time of its own (`best` says when it
  // was found instead): no line rather than "0.000 s".
  if (solution.solver().wall_seconds() > 0) {
    out << absl::StrFormat("wall time          %.3f s",
                           solution.solver().wall_seconds());
    if (const auto start =
            solution.solver().settings().find("cluster_start_seconds");
        start != solution.solver().settings().end()) {
      out << " (the cluster took " << start->second << " s to start, besides)";
    }
    out << "\n";
  }
  if (bound != nullptr) {
    out << absl::StrFormat(
        "bound              %s %.4f (%s); at most %.4f below the optimum\n",
        bound->exact ? "=" : "<=", bound->normalised_return, bound->method,
        GapToBound(*bound, solution.normalised_return()));
  }
}

}  // namespace mmapzero::cli
