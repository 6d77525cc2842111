// Job and worker ids on the wire: "job-000042", "worker-000007", the
// store's row id behind a prefix that says what it names. Row ids grow
// monotonically (AUTOINCREMENT), so an id is never reused after a restart.
#ifndef MMAPZERO_COORDINATOR_IDS_H_
#define MMAPZERO_COORDINATOR_IDS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mmapzero::coordinator {

std::string FormatJobId(int64_t row);
std::string FormatWorkerId(int64_t row);

// InvalidArgument "<field>: required" when empty; NotFound "<field>: no job
// '<text>'" when it is not an id this coordinator could have given.
absl::StatusOr<int64_t> ParseJobId(absl::string_view field,
                                   absl::string_view text);
absl::StatusOr<int64_t> ParseWorkerId(absl::string_view field,
                                      absl::string_view text);

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_IDS_H_
