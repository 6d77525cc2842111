// Aligned, human-readable forms of the validator's and evaluator's reports,
// as `mmapctl validate` and `mmapctl evaluate` print them. Times in us with
// three decimals (ns resolution), ratios with four to six.
#ifndef MMAPZERO_COMMON_VALIDATE_REPORT_TEXT_H_
#define MMAPZERO_COMMON_VALIDATE_REPORT_TEXT_H_

#include <string>

#include "common/validate/evaluation.h"
#include "common/validate/validation_report.h"

namespace mmapzero::validate {

// "VALID" or "INVALID (n violations)", the first `max_violations` as a
// table (buffer, rule, message) and how many more, the warnings, then the
// recomputed figures.
std::string ValidationReportToText(const ValidationReport& report,
                                   int max_violations);

// The warnings, then one aligned line per figure.
std::string EvaluationToText(const Evaluation& evaluation);

}  // namespace mmapzero::validate

#endif  // MMAPZERO_COMMON_VALIDATE_REPORT_TEXT_H_
