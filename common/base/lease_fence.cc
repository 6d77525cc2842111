#include "common/base/lease_fence.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/base/atomic_file.h"
#include "common/base/status_macros.h"

namespace mmapzero {
namespace {

std::string FencePath(const std::string& path) { return path + ".fence"; }

std::string ErrnoText() { return std::strerror(errno); }

// The fence file, open and exclusively locked until destroyed.
class LockedFence {
 public:
  // Waits up to `lock_wait` for the lock: a holder that is paused
  // (SIGSTOP, a stalled mount) must not wedge its successor's thread.
  static absl::StatusOr<LockedFence> Open(const std::string& path,
                                          absl::Duration lock_wait) {
    const std::string file = FencePath(path);
    std::error_code error;
    std::filesystem::create_directories(
        std::filesystem::path(file).parent_path(), error);
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      return absl::PermissionDeniedError(
          absl::StrCat(file, ": cannot open the lease fence: ", ErrnoText()));
    }
    LockedFence fence(file, fd);
    const absl::Time give_up = absl::Now() + lock_wait;
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno == EINTR) continue;
      if (errno != EWOULDBLOCK) {
        return absl::UnavailableError(absl::StrCat(
            file, ": cannot lock the lease fence: ", ErrnoText()));
      }
      if (absl::Now() >= give_up) {
        return absl::UnavailableError(absl::StrCat(
            file, ": the lease fence stayed locked for ",
            absl::FormatDuration(lock_wait),
            " (another learner paused in the middle of a save?); try again"));
      }
      absl::SleepFor(absl::Milliseconds(20));
    }
    return fence;
  }

  LockedFence(LockedFence&& other) noexcept
      : file_(std::move(other.file_)), fd_(other.fd_) {
    other.fd_ = -1;
  }
  LockedFence& operator=(LockedFence&&) = delete;
  ~LockedFence() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }

  absl::StatusOr<int64_t> Epoch() const {
    char text[32] = {};
    const ssize_t read = ::pread(fd_, text, sizeof(text) - 1, 0);
    if (read < 0) {
      return absl::DataLossError(
          absl::StrCat(file_, ": cannot read the lease fence: ", ErrnoText()));
    }
    absl::string_view digits =
        absl::StripAsciiWhitespace(absl::string_view(text, read));
    int64_t epoch = 0;
    if (digits.empty()) return 0;  // created just now
    if (!absl::SimpleAtoi(digits, &epoch) || epoch < 0) {
      return absl::DataLossError(absl::StrCat(
          file_, ": the lease fence holds '", digits, "', not an epoch"));
    }
    return epoch;
  }

  // Epochs only rise, so the new text is never shorter than the old one.
  absl::Status Raise(int64_t epoch) {
    const std::string text = absl::StrCat(epoch, "\n");
    if (::pwrite(fd_, text.data(), text.size(), 0) !=
            static_cast<ssize_t>(text.size()) ||
        ::ftruncate(fd_, static_cast<off_t>(text.size())) != 0 ||
        ::fsync(fd_) != 0) {
      return absl::DataLossError(
          absl::StrCat(file_, ": cannot write the lease fence: ", ErrnoText()));
    }
    return SyncParentDirectory(file_);
  }

  const std::string& file() const { return file_; }

 private:
  LockedFence(std::string file, int fd) : file_(std::move(file)), fd_(fd) {}

  std::string file_;
  int fd_;
};

// Locks the fence and checks `epoch` against it, raising it when lower.
absl::StatusOr<LockedFence> Enter(const std::string& path, int64_t epoch,
                                  absl::Duration lock_wait) {
  ASSIGN_OR_RETURN(LockedFence fence, LockedFence::Open(path, lock_wait));
  ASSIGN_OR_RETURN(const int64_t standing, fence.Epoch());
  if (standing > epoch) {
    return absl::AbortedError(absl::StrCat(
        path, ": fenced: a learner with lease epoch ", standing,
        " has claimed it; this one holds epoch ", epoch,
        " (its lease passed to another learner)"));
  }
  if (standing < epoch) RETURN_IF_ERROR(fence.Raise(epoch));
  return fence;
}

}  // namespace

absl::Status ClaimLeaseFence(const std::string& path, int64_t epoch,
                             absl::Duration lock_wait) {
  if (epoch <= 0) return absl::OkStatus();
  return Enter(path, epoch, lock_wait).status();
}

absl::Status WriteUnderLeaseFence(const std::string& path, int64_t epoch,
                                  absl::FunctionRef<absl::Status()> write,
                                  absl::Duration lock_wait) {
  if (epoch <= 0) return write();
  ASSIGN_OR_RETURN(const LockedFence fence, Enter(path, epoch, lock_wait));
  return write();
}

absl::StatusOr<int64_t> ReadLeaseFence(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(FencePath(path), error)) return 0;
  ASSIGN_OR_RETURN(const LockedFence fence,
                   LockedFence::Open(path, absl::Seconds(5)));
  return fence.Epoch();
}

}  // namespace mmapzero
