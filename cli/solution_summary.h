// The summary `play`, `solve` and `best` print for a solution: a small
// aligned table, or one JSON object with --json, that leads with the
// simulated latency and the speed-up over the heuristic (latency_report.h);
// with an optimality bound (their --bound), the bound and the solution's
// gap to it too.
#ifndef MMAPZERO_CLI_SOLUTION_SUMMARY_H_
#define MMAPZERO_CLI_SOLUTION_SUMMARY_H_

#include <ostream>

#include "cli/latency_report.h"
#include "common/bound/optimality_bound.h"
#include "common/game/program.h"
#include "proto/solution.pb.h"

namespace mmapzero::cli {

void PrintSolutionSummary(const game::Program& program, const Solution& solution,
                          const LatencyReport& latency, bool json,
                          std::ostream& out,
                          const bound::OptimalityBound* bound = nullptr);

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_SOLUTION_SUMMARY_H_
