// mmapctl validate WORKLOAD SOLUTION [--json]: checks a solution against the
// game's rules from the workload alone, independently of the game engine
// (common/validate/validator.h). Prints VALID or INVALID with the first
// violations and the recomputed figures; an invalid solution is an error,
// so scripts can test the exit status.
#include <iostream>

#include "absl/strings/str_cat.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/workload_and_solution.h"
#include "common/base/status_macros.h"
#include "common/validate/report_json.h"
#include "common/validate/report_text.h"
#include "common/validate/validator.h"
#include "common/workload/proto_io.h"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] = "validate WORKLOAD SOLUTION [--json]";
constexpr int kViolationsShown = 20;

}  // namespace

absl::Status RunValidate(const Args& args) {
  ASSIGN_OR_RETURN(const CommandLine line,
                   CommandLine::Parse(args, {}, {"json"}));
  ASSIGN_OR_RETURN(const WorkloadAndSolution inputs,
                   ReadWorkloadAndSolution(line, kUsage));
  const auto& [workload, solution, solution_path] = inputs;
  const validate::ValidationReport report =
      validate::ValidateSolution(workload, solution);
  if (line.Has("json")) {
    std::cout << validate::ValidationReportToJson(report);
  } else {
    std::cout << validate::ValidationReportToText(report, kViolationsShown);
  }
  std::cout.flush();
  if (report.ok) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      solution_path, ": invalid solution (", report.violations.size(),
      " violation", report.violations.size() == 1 ? "" : "s", ")"));
}

}  // namespace mmapzero::cli
