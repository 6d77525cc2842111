#include "common/validate/validation_report.h"

#include "absl/strings/str_cat.h"

namespace mmapzero::validate {

std::string FormatViolation(const Violation& violation) {
  if (violation.buffer_id < 0) {
    return absl::StrCat("[", violation.rule, "] ", violation.message);
  }
  return absl::StrCat("[", violation.rule, "] buffer ", violation.buffer_id,
                      ": ", violation.message);
}

}  // namespace mmapzero::validate
