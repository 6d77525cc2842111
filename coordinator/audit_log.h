// The coordinator's audit log: one JSON object per line for every change
// a caller makes to what the service keeps (a job submitted or cancelled,
// a network registered or deleted), naming the caller, appended to
// `audit.jsonl` in the data directory and flushed to the disk line by
// line. The service log (log_line.h) says the same for operators reading
// along; this file is for whoever must later answer "who did that".
//
//   {"ts":"2026-11-29T08:30:00.123Z","event":"job_cancelled",
//    "caller":"CN=alice,OU=client,O=mmapzero","job":"job-000007",...}
#ifndef MMAPZERO_COORDINATOR_AUDIT_LOG_H_
#define MMAPZERO_COORDINATOR_AUDIT_LOG_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace mmapzero::coordinator {

class AuditLog {
 public:
  using Fields = std::vector<std::pair<std::string, std::string>>;

  // Appends to `path` (made mode 0600 when missing). Errors name the path.
  static absl::StatusOr<std::unique_ptr<AuditLog>> Open(
      const std::string& path);

  // One line {"ts": `at`, "event": `event`, "caller": `caller`, fields...},
  // appended with one write(2) and flushed (fdatasync). The file is opened
  // for each line, so a file moved aside (rotated) is followed by a new
  // one. A failure is returned; the change it records has happened.
  absl::Status Record(absl::Time at, const std::string& event,
                      const std::string& caller, const Fields& fields)
      ABSL_LOCKS_EXCLUDED(mu_);

  const std::string& path() const { return path_; }

 private:
  explicit AuditLog(std::string path) : path_(std::move(path)) {}
  absl::Status Append(const std::string& line) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string path_;
  absl::Mutex mu_;  // one line at a time
};

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_AUDIT_LOG_H_
