#include "coordinator/audit_log.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/base/json_quoted.h"
#include "common/base/status_macros.h"

namespace mmapzero::coordinator {

absl::StatusOr<std::unique_ptr<AuditLog>> AuditLog::Open(
    const std::string& path) {
  std::unique_ptr<AuditLog> log(new AuditLog(path));
  absl::MutexLock lock(&log->mu_);
  RETURN_IF_ERROR(log->Append(""));  // made now: a bad path fails the start
  return log;
}

absl::Status AuditLog::Append(const std::string& line) {
  const int fd = open(path_.c_str(),
                      O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::InternalError(absl::StrCat(
        path_, ": cannot open the audit log: ", strerror(errno)));
  }
  size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = write(fd, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = errno;
      close(fd);
      return absl::InternalError(absl::StrCat(
          path_, ": cannot append to the audit log: ", strerror(error)));
    }
    written += static_cast<size_t>(n);
  }
  const bool flushed = line.empty() || fdatasync(fd) == 0;
  const int error = errno;
  close(fd);
  if (!flushed) {
    return absl::InternalError(absl::StrCat(
        path_, ": cannot flush the audit log: ", strerror(error)));
  }
  return absl::OkStatus();
}

absl::Status AuditLog::Record(absl::Time at, const std::string& event,
                              const std::string& caller,
                              const Fields& fields) {
  std::string line = absl::StrCat(
      "{\"ts\":",
      JsonQuoted(absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", at,
                                  absl::UTCTimeZone())),
      ",\"event\":", JsonQuoted(event), ",\"caller\":", JsonQuoted(caller));
  for (const auto& [key, value] : fields) {
    absl::StrAppend(&line, ",", JsonQuoted(key), ":", JsonQuoted(value));
  }
  line += "}\n";
  absl::MutexLock lock(&mu_);
  return Append(line);
}

}  // namespace mmapzero::coordinator
