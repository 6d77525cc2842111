// Writes a whole file through a temporary file renamed into place, so a
// reader never sees half a file and a failed write leaves the old one.
#ifndef MMAPZERO_COMMON_BASE_ATOMIC_FILE_H_
#define MMAPZERO_COMMON_BASE_ATOMIC_FILE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace mmapzero {

// Errors name `path`; on error no temporary file is left behind.
absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view contents);

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_BASE_ATOMIC_FILE_H_
