// What a user reads first about a solution: the program's simulated latency
// and its speed-up over the heuristic (the XLA-like baseline), beside the
// modelled figures. `solve`, `best` and `play` print it.
#ifndef MMAPZERO_CLI_LATENCY_REPORT_H_
#define MMAPZERO_CLI_LATENCY_REPORT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/game/program.h"
#include "proto/job.pb.h"
#include "proto/solution.pb.h"

namespace mmapzero::cli {

struct LatencyReport {
  double simulated_latency_us = 0;  // the latency simulator's figure
  double heuristic_latency_us = 0;  // the heuristic's, simulated alike
  double speedup_over_heuristic = 0;  // heuristic / this
};

// Simulates `solution` (valid for `program`) and the heuristic's solution
// of the same program (played here, a few seconds at most, unless
// `solution` is the heuristic's).
absl::StatusOr<LatencyReport> ReportLatency(
    const std::shared_ptr<const game::Program>& program,
    const Solution& solution);

// "812.4 us", "12.345 ms", "3.210 s": microseconds in the unit that reads.
std::string FormatLatency(double us);

// A job's best as users read it: "12.345 ms, 1.0234x over the heuristic",
// or "-" while its latencies are unknown (seeding, or stored before they
// were kept).
std::string JobLatencyText(const v1::JobStatus& job);

// The agent's own share of a job's best: "1.0003x over its start (brkga,
// 2.112 ms)", or "-" while the start is unknown (seeding).
std::string AgentShareText(const v1::JobStatus& job);

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_LATENCY_REPORT_H_
