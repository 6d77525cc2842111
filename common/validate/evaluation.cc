#include "common/validate/evaluation.h"

#include <algorithm>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/validate/validator.h"

namespace mmapzero::validate {
namespace {

constexpr int kViolationsNamed = 3;

}  // namespace

double SpeedUp(double all_slow_latency_us, double latency_us) {
  if (latency_us > 0) return all_slow_latency_us / latency_us;
  return all_slow_latency_us > 0 ? std::numeric_limits<double>::infinity()
                                 : 1.0;
}

absl::Status InvalidSolutionError(const ValidationReport& report) {
  if (report.ok) return absl::OkStatus();
  const int total = static_cast<int>(report.violations.size());
  std::string message =
      absl::StrCat("the solution is invalid (", total, " violation",
                   total == 1 ? "" : "s", "): ");
  for (int i = 0; i < std::min(total, kViolationsNamed); ++i) {
    absl::StrAppend(&message, i > 0 ? "; " : "",
                    FormatViolation(report.violations[i]));
  }
  if (total > kViolationsNamed) {
    absl::StrAppend(&message, "; and ", total - kViolationsNamed, " more");
  }
  return absl::FailedPreconditionError(message);
}

absl::StatusOr<Evaluation> EvaluateSolution(const Workload& workload,
                                            const Solution& solution) {
  Evaluation evaluation;
  evaluation.validation = ValidateSolution(workload, solution);
  const ValidationReport& report = evaluation.validation;
  RETURN_IF_ERROR(InvalidSolutionError(report));
  ASSIGN_OR_RETURN(evaluation.simulation, SimulateSolution(workload, solution));
  evaluation.speedup_modelled =
      SpeedUp(report.all_slow_latency_us, report.latency_us);
  evaluation.speedup_simulated =
      SpeedUp(report.all_slow_latency_us, evaluation.simulation.latency_us);
  return evaluation;
}

}  // namespace mmapzero::validate
