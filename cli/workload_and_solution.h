// The two positional files of `validate`, `evaluate` and `render`: a
// workload and a solution of it, read and checked (errors name the file).
#ifndef MMAPZERO_CLI_WORKLOAD_AND_SOLUTION_H_
#define MMAPZERO_CLI_WORKLOAD_AND_SOLUTION_H_

#include <string>

#include "absl/status/statusor.h"
#include "cli/command_line.h"
#include "proto/solution.pb.h"
#include "proto/workload.pb.h"

namespace mmapzero::cli {

struct WorkloadAndSolution {
  Workload workload;
  Solution solution;
  std::string solution_path;  // for messages about the solution
};

// Expects exactly WORKLOAD SOLUTION as positional arguments (`usage` quoted
// otherwise) and reads both.
absl::StatusOr<WorkloadAndSolution> ReadWorkloadAndSolution(
    const CommandLine& line, const std::string& usage);

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_WORKLOAD_AND_SOLUTION_H_
