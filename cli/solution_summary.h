// The summary `play` and `solve` print for a solution they made: a small
// aligned table, or one JSON object with --json.
#ifndef MMAPZERO_CLI_SOLUTION_SUMMARY_H_
#define MMAPZERO_CLI_SOLUTION_SUMMARY_H_

#include <ostream>

#include "common/game/program.h"
#include "proto/solution.pb.h"

namespace mmapzero::cli {

void PrintSolutionSummary(const game::Program& program, const Solution& solution,
                          bool json, std::ostream& out);

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_SOLUTION_SUMMARY_H_
