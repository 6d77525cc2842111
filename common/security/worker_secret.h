// A worker's proof of its id. Every worker shares the worker certificate
// role, so a worker id alone names a worker that any of them could claim:
// heartbeat as it (and so receive its lease tickets), fetch its jobs'
// workloads or report its networks. Register answers a secret, the
// HMAC-SHA256 of the id under the coordinator's lease key, and the worker
// sends it with every later call that names its id (Heartbeat,
// FetchWorkload, FetchJobNetwork, ReportJobNetwork). Nothing is stored:
// the coordinator recomputes it. A replay server holds the lease key (it
// checks tickets) and so could compute any secret: the same trust it is
// given for tickets (docs/design.md).
#ifndef MMAPZERO_COMMON_SECURITY_WORKER_SECRET_H_
#define MMAPZERO_COMMON_SECURITY_WORKER_SECRET_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace mmapzero::security {

// 64 hex digits.
std::string WorkerSecret(absl::string_view key, absl::string_view worker_id);

// OK when `secret` is `worker_id`'s under `key`; PermissionDenied naming
// the field worker_secret and the id otherwise.
absl::Status CheckWorkerSecret(absl::string_view key,
                               absl::string_view worker_id,
                               absl::string_view secret);

}  // namespace mmapzero::security

#endif  // MMAPZERO_COMMON_SECURITY_WORKER_SECRET_H_
