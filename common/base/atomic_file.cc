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

}  // namespace

absl::StatusOr<std::unique_ptr<AtomicFileWriter>> AtomicFileWriter::Open(
    const std::string& path, mode_t mode) {
  std::string temp = path + ".tmp";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                        mode);
  if (fd < 0) {
    return absl::PermissionDeniedError(absl::StrCat(
        path, ": cannot open ", temp, " for writing: ", ErrnoText()));
  }
  // A temporary file left by an earlier run keeps its mode through O_CREAT.
  if (::fchmod(fd, mode) != 0) {
    const std::string error = ErrnoText();
    ::close(fd);
    ::unlink(temp.c_str());
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot set the mode of ", temp, ": ", error));
  }
  return std::unique_ptr<AtomicFileWriter>(
      new AtomicFileWriter(path, std::move(temp), fd));
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) {
    ::close(fd_);
    std::remove(temp_.c_str());
  }
}

absl::Status AtomicFileWriter::Append(std::string_view bytes) {
  if (!status_.ok()) return status_;
  if (fd_ < 0) {
    status_ = absl::FailedPreconditionError(
        absl::StrCat(temp_, ": written after its commit"));
    return status_;
  }
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd_, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      status_ = absl::DataLossError(
          absl::StrCat(temp_, ": write failed: ", ErrnoText()));
      return status_;
    }
    bytes.remove_prefix(static_cast<size_t>(written));
  }
  return absl::OkStatus();
}

absl::Status AtomicFileWriter::Commit(const std::string& keep_previous_as) {
  if (!status_.ok()) return status_;
  const bool synced = ::fsync(fd_) == 0;
  const std::string sync_error = synced ? "" : ErrnoText();
  const bool closed = ::close(fd_) == 0;
  fd_ = -1;
  if (!synced || !closed) {
    std::remove(temp_.c_str());
    status_ = absl::DataLossError(absl::StrCat(
        temp_, ": write failed: ", synced ? ErrnoText() : sync_error));
    return status_;
  }
  if (!keep_previous_as.empty() &&
      std::rename(path_.c_str(), keep_previous_as.c_str()) != 0 &&
      errno != ENOENT) {
    const std::string error = ErrnoText();
    std::remove(temp_.c_str());
    status_ = absl::PermissionDeniedError(absl::StrCat(
        path_, ": cannot keep it as ", keep_previous_as, ": ", error));
    return status_;
  }
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) {
    const std::string error = ErrnoText();
    std::remove(temp_.c_str());
    status_ = absl::PermissionDeniedError(
        absl::StrCat(path_, ": cannot rename ", temp_, " into place: ", error));
    return status_;
  }
  status_ = SyncParentDirectory(path_);
  return status_;
}

absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view contents, mode_t mode) {
  absl::StatusOr<std::unique_ptr<AtomicFileWriter>> file =
      AtomicFileWriter::Open(path, mode);
  if (!file.ok()) return file.status();
  if (absl::Status appended = (*file)->Append(contents); !appended.ok()) {
    return appended;
  }
  return (*file)->Commit();
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
