// mmapctl evaluate WORKLOAD SOLUTION [--json] [--bound]: the figures of a
// valid solution: return, normalised return, modelled and simulated
// latency, stall and speed-up over the all-slow program
// (common/validate/evaluation.h); with --bound, also the optimality bound
// and the solution's gap to it (common/bound/optimality_bound.h). An
// invalid solution is an error naming its first violations.
#include <algorithm>
#include <iostream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/workload_and_solution.h"
#include "common/base/status_macros.h"
#include "common/bound/optimality_bound.h"
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
  std::optional<bound::OptimalityBound> bound;
  if (line.Has("bound")) {
    absl::StatusOr<bound::OptimalityBound> computed =
        bound::ComputeBound(workload);
    if (!computed.ok()) return computed.status();
    bound = *computed;
  }
  const double normalised = evaluation->validation.normalised_return;
  if (line.Has("json")) {
    std::string json = validate::EvaluationToJson(*evaluation);
    if (bound.has_value()) {
      nlohmann::ordered_json object = nlohmann::ordered_json::parse(json);
      object["bound_normalised_return"] = bound->normalised_return;
      object["bound_exact"] = bound->exact;
      object["gap"] = bound->normalised_return - normalised;
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
          std::max(0.0, bound->normalised_return - normalised));
    }
  }
  std::cout.flush();
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
