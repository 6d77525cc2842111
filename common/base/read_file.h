// A file, or its first bytes, read into memory as they are.
#ifndef MMAPZERO_COMMON_BASE_READ_FILE_H_
#define MMAPZERO_COMMON_BASE_READ_FILE_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"

namespace mmapzero {

// NotFound naming `path` when it cannot be opened.
absl::StatusOr<std::string> ReadWholeFile(const std::string& path);
// At most `max_bytes` from the file's start (all of a shorter file); the
// same error.
absl::StatusOr<std::string> ReadFilePrefix(const std::string& path,
                                           size_t max_bytes);

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_BASE_READ_FILE_H_
