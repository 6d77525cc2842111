#include "common/base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace mmapzero {
namespace {

std::string ErrnoText() { return std::strerror(errno); }

// Writes all of `contents` to `fd` and flushes it to the disk.
bool WriteAndSync(int fd, std::string_view contents) {
  while (!contents.empty()) {
    const ssize_t written = ::write(fd, contents.data(), contents.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    contents.remove_prefix(static_cast<size_t>(written));
  }
  return ::fsync(fd) == 0;
}

}  // namespace

absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view contents, mode_t mode) {
  const std::string temp = path + ".tmp";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                        mode);
  // A temporary file left by an earlier run keeps its mode through O_CREAT.
  if (fd >= 0 && ::fchmod(fd, mode) != 0) {
    ::close(fd);
    ::unlink(temp.c_str());
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot set the mode of ", temp, ": ", ErrnoText()));
  }
  if (fd < 0) {
    return absl::PermissionDeniedError(absl::StrCat(
        path, ": cannot open ", temp, " for writing: ", ErrnoText()));
  }
  const bool written = WriteAndSync(fd, contents);
  const std::string write_error = written ? "" : ErrnoText();
  if (::close(fd) != 0 || !written) {
    std::remove(temp.c_str());
    return absl::DataLossError(absl::StrCat(
        temp, ": write failed: ", written ? ErrnoText() : write_error));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string error = ErrnoText();
    std::remove(temp.c_str());
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot rename ", temp, " into place: ", error));
  }
  return SyncParentDirectory(path);
}

absl::Status SyncParentDirectory(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return SyncDirectory(".");
  return SyncDirectory(slash == 0 ? "/" : path.substr(0, slash));
}

absl::Status SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        absl::StrCat(dir, ": cannot open the folder to sync: ", ErrnoText()));
  }
  const bool synced = ::fsync(fd) == 0;
  const std::string error = synced ? "" : ErrnoText();
  ::close(fd);
  if (!synced) {
    return absl::DataLossError(
        absl::StrCat(dir, ": folder sync failed: ", error));
  }
  return absl::OkStatus();
}

}  // namespace mmapzero
