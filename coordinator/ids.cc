#include "coordinator/ids.h"

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace mmapzero::coordinator {
namespace {

absl::StatusOr<int64_t> ParseId(absl::string_view field, absl::string_view text,
                                absl::string_view prefix,
                                absl::string_view noun) {
  if (text.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": required"));
  }
  int64_t row = 0;
  if (!absl::StartsWith(text, prefix) ||
      !absl::SimpleAtoi(text.substr(prefix.size()), &row) || row <= 0) {
    return absl::NotFoundError(
        absl::StrCat(field, ": no ", noun, " '", text, "'"));
  }
  return row;
}

}  // namespace

std::string FormatJobId(int64_t row) {
  return absl::StrFormat("job-%06d", row);
}

std::string FormatWorkerId(int64_t row) {
  return absl::StrFormat("worker-%06d", row);
}

absl::StatusOr<int64_t> ParseJobId(absl::string_view field,
                                   absl::string_view text) {
  return ParseId(field, text, "job-", "job");
}

absl::StatusOr<int64_t> ParseWorkerId(absl::string_view field,
                                      absl::string_view text) {
  return ParseId(field, text, "worker-", "worker");
}

}  // namespace mmapzero::coordinator
