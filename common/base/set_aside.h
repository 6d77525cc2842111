// A damaged file or folder moved out of the way instead of deleted: to
// "<path>.damaged-N", the first N free, so that one set aside never
// replaces another and an operator can still look at what went wrong.
#ifndef MMAPZERO_COMMON_BASE_SET_ASIDE_H_
#define MMAPZERO_COMMON_BASE_SET_ASIDE_H_

#include <string>

#include "absl/status/statusor.h"

namespace mmapzero {

// Where `path` went; "" when it did not exist. Errors name the path.
absl::StatusOr<std::string> SetAsideDamaged(const std::string& path);

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_BASE_SET_ASIDE_H_
