// `mmapctl bound WORKLOAD [--solution SOLUTION] [--time-limit SECONDS]
// [--write-lp FILE.mps] [--json]`: an upper bound on the workload's best
// normalised return
// (common/bound/optimality_bound.h): the exact optimum for a program of a
// dozen buffers, else an LP relaxation, given at most --time-limit seconds
// (default: none; past it, an error saying so); --write-lp also writes the
// relaxation as MPS for other solvers. With --solution, that
// solution's gap to it, after the independent validator has recomputed its
// return.
#include <iostream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/bound_report.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "common/base/status_macros.h"
#include "common/bound/optimality_bound.h"
#include "common/validate/validator.h"
#include "common/workload/proto_io.h"
#include "nlohmann/json.hpp"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] =
    "bound WORKLOAD [--solution SOLUTION] [--time-limit SECONDS] "
    "[--write-lp FILE.mps] [--json]";

}  // namespace

absl::Status RunBound(const Args& args) {
  ASSIGN_OR_RETURN(const CommandLine line,
                   CommandLine::Parse(args,
                                      {"solution", "time-limit", "write-lp"},
                                      {"json"}));
  RETURN_IF_ERROR(line.ExpectPositional(1, kUsage));
  bound::BoundOptions options;
  ASSIGN_OR_RETURN(options.max_seconds, line.GetDouble("time-limit", 0));
  options.lp_file = line.GetString("write-lp", "");
  if (!(options.max_seconds >= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--time-limit: must be seconds >= 0 (0: no limit), got ",
                     line.GetString("time-limit", "")));
  }
  const std::string& path = line.positional()[0];
  ASSIGN_OR_RETURN(const Workload workload, ReadWorkload(path));
  // The solution first: a bad file fails before minutes of LP.
  std::optional<validate::ValidationReport> report;
  const std::string solution_path = line.GetString("solution", "");
  if (line.Has("solution")) {
    ASSIGN_OR_RETURN(const Solution solution, ReadSolution(solution_path));
    report = validate::ValidateSolution(workload, solution);
    if (!report->ok) {
      return absl::FailedPreconditionError(absl::StrCat(
          solution_path, ": not a valid solution of ", path, " (",
          report->violations.empty() ? "" : report->violations[0].message,
          "); `mmapctl validate` lists why"));
    }
  }
  // Seconds on hundreds of buffers, minutes on tens of thousands.
  std::cerr << "bounding " << path << " (" << workload.buffers_size()
            << " buffers)..." << std::endl;
  absl::StatusOr<bound::OptimalityBound> bound =
      bound::ComputeBound(workload, options);
  if (!bound.ok()) {
    return absl::Status(bound.status().code(),
                        absl::StrCat(path, ": ", bound.status().message()));
  }
  nlohmann::ordered_json json = {
      {"workload", workload.name()},
      {"bound_normalised_return", bound->normalised_return},
      {"bound_return_us", bound->return_us},
      {"exact", bound->exact},
      {"method", bound->method},
      {"details", bound->details},
      {"seconds", bound->seconds}};
  std::string text = absl::StrFormat(
      "%s: best normalised return %s %.4f (%s: %s; %.2f s)\n", workload.name(),
      bound->exact ? "=" : "<=", bound->normalised_return, bound->method,
      bound->details, bound->seconds);
  if (report.has_value()) {
    const double gap = bound->normalised_return - report->normalised_return;
    json["solution_normalised_return"] = report->normalised_return;
    json["gap"] = gap;
    absl::StrAppendFormat(&text,
                          "%s: %.4f, at most %.4f below the optimum%s\n",
                          solution_path, report->normalised_return,
                          GapToBound(*bound, report->normalised_return),
                          bound->exact && gap < 1e-9 ? " (optimal)" : "");
  }
  if (line.Has("json")) {
    std::cout << json.dump() << std::endl;
  } else {
    std::cout << text;
  }
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
