// Writes a whole file durably: through a temporary file that is flushed to
// the disk (fsync) and renamed into place, then the directory is flushed
// too, so that after a crash or power loss a reader finds either the old
// file or the whole new one, never a torn or missing one.
#ifndef MMAPZERO_COMMON_BASE_ATOMIC_FILE_H_
#define MMAPZERO_COMMON_BASE_ATOMIC_FILE_H_

#include <sys/types.h>

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace mmapzero {

// Errors name `path`; on error no temporary file is left behind. `mode`
// is the new file's permissions (0600 for a private key).
absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view contents,
                                 mode_t mode = 0644);

// Flushes `dir`'s entries (a rename or a new file in it) to the disk.
absl::Status SyncDirectory(const std::string& dir);
// SyncDirectory of the folder holding `path` ("." for a bare name).
absl::Status SyncParentDirectory(const std::string& path);

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_BASE_ATOMIC_FILE_H_
