// A whole file read into memory, bytes as they are.
#ifndef MMAPZERO_COMMON_BASE_READ_FILE_H_
#define MMAPZERO_COMMON_BASE_READ_FILE_H_

#include <string>

#include "absl/status/statusor.h"

namespace mmapzero {

// NotFound naming `path` when it cannot be opened.
absl::StatusOr<std::string> ReadWholeFile(const std::string& path);

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_BASE_READ_FILE_H_
