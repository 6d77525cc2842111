#include "cli/workload_and_solution.h"

#include "common/base/status_macros.h"
#include "common/workload/proto_io.h"

namespace mmapzero::cli {

absl::StatusOr<WorkloadAndSolution> ReadWorkloadAndSolution(
    const CommandLine& line, const std::string& usage) {
  RETURN_IF_ERROR(line.ExpectPositional(2, usage));
  WorkloadAndSolution inputs;
  inputs.solution_path = line.positional()[1];
  ASSIGN_OR_RETURN(inputs.workload, ReadWorkload(line.positional()[0]));
  ASSIGN_OR_RETURN(inputs.solution, ReadSolution(inputs.solution_path));
  return inputs;
}

}  // namespace mmapzero::cli
