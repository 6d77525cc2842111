// Writes a whole file durably: through a temporary file that is flushed to
// the disk (fsync) and renamed into place, then the directory is flushed
// too, so that after a crash or power loss a reader finds either the old
// file or the whole new one, never a torn or missing one.
#ifndef MMAPZERO_COMMON_BASE_ATOMIC_FILE_H_
#define MMAPZERO_COMMON_BASE_ATOMIC_FILE_H_

#include <sys/types.h>

#include <string>
#include <string_view>
#include <utility>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace mmapzero {

// Errors name `path`; on error no temporary file is left behind. `mode`
// is the new file's permissions (0600 for a private key).
absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view contents,
                                 mode_t mode = 0644);

// The same for a file written piece by piece, never whole in memory: the
// pieces go to PATH.tmp, Commit flushes it and renames it into place.
// Without a Commit (an error, or the writer dropped) the temporary file
// is removed and PATH is as it was.
class AtomicFileWriter {
 public:
  // Errors name `path`.
  static absl::StatusOr<std::unique_ptr<AtomicFileWriter>> Open(
      const std::string& path, mode_t mode = 0644);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  // The first failure is kept and returned by every later call.
  absl::Status Append(std::string_view bytes);
  // Flushes and renames the file into place; when `keep_previous_as` is
  // given and PATH exists, PATH is first renamed to it (so the folder
  // holds the new file and the one before, never neither).
  absl::Status Commit(const std::string& keep_previous_as = "");

 private:
  AtomicFileWriter(std::string path, std::string temp, int fd)
      : path_(std::move(path)), temp_(std::move(temp)), fd_(fd) {}

  const std::string path_;
  const std::string temp_;
  int fd_;  // -1 once closed
  absl::Status status_;
};

// Flushes `dir`'s entries (a rename or a new file in it) to the disk.
absl::Status SyncDirectory(const std::string& dir);
// SyncDirectory of the folder holding `path` ("." for a bare name).
absl::Status SyncParentDirectory(const std::string& path);

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_BASE_ATOMIC_FILE_H_
