#include "cli/latency_report.h"

#include "absl/strings/str_format.h"
#include "common/base/status_macros.h"
#include "common/solvers/solver.h"
#include "common/validate/latency_simulator.h"

namespace mmapzero::cli {

absl::StatusOr<LatencyReport> ReportLatency(
    const std::shared_ptr<const game::Program>& program,
    const Solution& solution) {
  LatencyReport report;
  ASSIGN_OR_RETURN(const validate::SimulationResult simulated,
                   validate::SimulateSolution(program->source(), solution));
  report.simulated_latency_us = simulated.latency_us;
  report.heuristic_latency_us = report.simulated_latency_us;
  if (solution.solver().name() != "heuristic") {
    ASSIGN_OR_RETURN(std::unique_ptr<solvers::Solver> heuristic,
                     solvers::MakeSolver("heuristic", {}));
    solvers::SolverBudget budget;
    budget.wall_time = absl::Seconds(60);
    ASSIGN_OR_RETURN(const Solution plan, heuristic->Solve(program, budget));
    ASSIGN_OR_RETURN(const validate::SimulationResult baseline,
                     validate::SimulateSolution(program->source(), plan));
    report.heuristic_latency_us = baseline.latency_us;
  }
  report.speedup_over_heuristic =
      report.simulated_latency_us > 0
          ? report.heuristic_latency_us / report.simulated_latency_us
          : 0;
  return report;
}

std::string JobLatencyText(const v1::JobStatus& job) {
  if (job.best_latency_us() <= 0) return "-";
  if (job.heuristic_latency_us() <= 0) return FormatLatency(job.best_latency_us());
  return absl::StrFormat("%s, %.4fx over the heuristic",
                         FormatLatency(job.best_latency_us()),
                         job.heuristic_latency_us() / job.best_latency_us());
}

std::string AgentShareText(const v1::JobStatus& job) {
  if (job.agent_speedup() <= 0) return "-";
  return absl::StrFormat("%.4fx over its start (%s, %s)", job.agent_speedup(),
                         job.start_solver(),
                         FormatLatency(job.start_latency_us()));
}

std::string FormatLatency(double us) {
  if (us < 1e4) return absl::StrFormat("%.1f us", us);
  if (us < 1e7) return absl::StrFormat("%.3f ms", us / 1e3);
  return absl::StrFormat("%.3f s", us / 1e6);
}

}  // namespace mmapzero::cli
