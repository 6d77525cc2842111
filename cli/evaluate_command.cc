// mmapctl evaluate WORKLOAD SOLUTION [--json]: the figures of a valid
// solution: return, normalised return, modelled and simulated latency, stall
// and speed-up over the all-slow program (common/validate/evaluation.h).
// An invalid solution is an error naming its first violations.
#include <iostream>

#include "absl/strings/str_cat.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/workload_and_solution.h"
#include "common/base/status_macros.h"
#include "common/validate/evaluation.h"
#include "common/validate/report_json.h"
#include "common/validate/report_text.h"
#include "common/workload/proto_io.h"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] = "evaluate WORKLOAD SOLUTION [--json]";

}  // namespace

absl::Status RunEvaluate(const Args& args) {
  ASSIGN_OR_RETURN(const CommandLine line,
                   CommandLine::Parse(args, {}, {"json"}));
  ASSIGN_OR_RETURN(const WorkloadAndSolution inputs,
                   ReadWorkloadAndSolution(line, kUsage));
  const auto& [workload, solution, solution_path] = inputs;
  absl::StatusOr<validate::Evaluation> evaluation =
      validate::EvaluateSolution(workload, solution);
  if (!evaluation.ok()) {
    return absl::Status(
        evaluation.status().code(),
        absl::StrCat(solution_path, ": ", evaluation.status().message()));
  }
  if (line.Has("json")) {
    std::cout << validate::EvaluationToJson(*evaluation);
  } else {
    std::cout << validate::EvaluationToText(*evaluation);
  }
  std::cout.flush();
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
