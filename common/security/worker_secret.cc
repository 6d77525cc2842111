#include "common/security/worker_secret.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/security/hmac.h"

namespace mmapzero::security {

std::string WorkerSecret(absl::string_view key, absl::string_view worker_id) {
  return absl::BytesToHexString(
      HmacSha256(key, absl::StrCat("mmapzero-worker-secret-v1|", worker_id)));
}

absl::Status CheckWorkerSecret(absl::string_view key,
                               absl::string_view worker_id,
                               absl::string_view secret) {
  if (!key.empty() && SameMac(WorkerSecret(key, worker_id), secret)) {
    return absl::OkStatus();
  }
  return absl::PermissionDeniedError(
      absl::StrCat("worker_secret: ", secret.empty() ? "missing" : "wrong",
                   " for worker_id '", worker_id,
                   "': a worker calls with the secret its Register answered"));
}

}  // namespace mmapzero::security
