// mmapctl evaluate WORKLOAD SOLUTION [--json] [--bound]: the figures of a
// valid solution: return, normalised return, modelled and simulated
// latency, stall and speed-up over the all-slow program
// (common/validate/evaluation.h); with --bound, also the optimality bound
// and the solution's gap to it (common/bound/optimality_bound.h). An
// invalid solution is an error naming its first violations.
#include <iostream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/command_line.h"
#include "cli/bound_report.h"
#include "cli/commands.h"
#include "cli/workload_and_solution.h"
#include "common/base/status_macros.h"
#include "common/validate/evaluation.h"
#include "common/validate/report_json.h"
#include "common/validate/report_text.h"
#include "common/workload/proto_io.h"
#include "nlohmann/json.hpp"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] = "evaluate WORKLOAD SOLUTION [--json] [--bound]";

}  // namespace

absl::Status RunEvaluate(const Args& args) {
  ASSIGN_OR_RETURN(const CommandLine line,
                   CommandLine::Parse(args, {}, {"json", "bound"}));
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
  ASSIGN_OR_RETURN(const std::optional<bound::OptimalityBound> bound,
                   BoundIfAsked(line, workload));
  const double normalised = evaluation->validation.normalised_return;
  if (line.Has("json")) {
    std::string json = validate::EvaluationToJson(*evaluation);
    if (bound.has_value()) {
      nlohmann::ordered_json object = nlohmann::ordered_json::parse(json);
      AddBoundFields(*bound, normalised, object);
      json = object.dump() + "\n";
    }
    std::cout << json;
  } else {
    std::cout << validate::EvaluationToText(*evaluation);
    if (bound.has_value()) {
      std::cout << absl::StrFormat(
          "bound          best normalised return %s %.4f (%s); this solution "
          "is at most %.4f below it\n",
          bound->exact ? "=" : "<=", bound->normalised_return, bound->method,
          GapToBound(*bound, normalised));
    }
  }
  std::cout.flush();
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
