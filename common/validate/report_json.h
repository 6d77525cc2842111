// JSON forms of the validator's and evaluator's reports, for scripts
// (`mmapctl validate --json`, `mmapctl evaluate --json`). Field names are
// snake_case with units in the name; infinite or NaN numbers are null.
#ifndef MMAPZERO_COMMON_VALIDATE_REPORT_JSON_H_
#define MMAPZERO_COMMON_VALIDATE_REPORT_JSON_H_

#include <string>

#include "common/validate/evaluation.h"
#include "common/validate/validation_report.h"

namespace mmapzero::validate {

// {"valid", "num_violations", "violations": [{"buffer_id", "rule",
// "message"}], "warnings": [...], "actions": {...}, "return_us", ...}.
// Lists at most `max_violations` violations (< 0: all).
std::string ValidationReportToJson(const ValidationReport& report,
                                   int max_violations = -1);

// {"return_us", "normalised_return", "modelled_latency_us",
// "simulated_latency_us", "stall_us", ..., "speedup_modelled",
// "speedup_simulated", "warnings": [...]}.
std::string EvaluationToJson(const Evaluation& evaluation);

}  // namespace mmapzero::validate

#endif  // MMAPZERO_COMMON_VALIDATE_REPORT_JSON_H_
