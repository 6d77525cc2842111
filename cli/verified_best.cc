#include "cli/verified_best.h"

#include "absl/strings/str_format.h"
#include "common/validate/validator.h"

namespace mmapzero::cli {

absl::Status CheckBestValid(const std::string& job_id, const Workload& workload,
                            const Solution& solution) {
  const validate::ValidationReport report =
      validate::ValidateSolution(workload, solution);
  if (report.ok) return absl::OkStatus();
  return absl::DataLossError(absl::StrFormat(
      "the best solution of %s failed independent validation here (%d "
      "violations, first: %s: %s); nothing written",
      job_id, report.violations.size(), report.violations[0].rule,
      report.violations[0].message));
}

}  // namespace mmapzero::cli
