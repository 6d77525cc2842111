#include "common/security/lease_ticket.h"

#include <openssl/rand.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/security/hmac.h"

namespace mmapzero::security {
namespace {

// Each field with its length first, so that no two tickets sign the same
// bytes.
std::string SignedBytes(const v1::LeaseTicket& ticket) {
  std::string bytes = "mmapzero-lease-ticket-v1";
  for (const std::string& field :
       {ticket.job_id(), ticket.worker_id(),
        absl::StrCat(static_cast<int>(ticket.role())),
        absl::StrCat(ticket.expiry_unix_ms()),
        absl::StrCat(ticket.grace_ms())}) {
    absl::StrAppend(&bytes, "|", field.size(), ":", field);
  }
  return bytes;
}

std::string Mac(absl::string_view key, const v1::LeaseTicket& ticket) {
  return HmacSha256(key, SignedBytes(ticket));
}

std::string FormatUnixMs(int64_t unix_ms) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::FromUnixMillis(unix_ms),
                          absl::UTCTimeZone());
}

}  // namespace

absl::StatusOr<std::string> NewLeaseKey() {
  std::string key(kLeaseKeyBytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(key.data()),
                 kLeaseKeyBytes) != 1) {
    return absl::InternalError("no random bytes for a lease key (OpenSSL)");
  }
  return key;
}

void SignLeaseTicket(absl::string_view key, v1::LeaseTicket& ticket) {
  ticket.set_mac(Mac(key, ticket));
}

absl::Status CheckLeaseTicket(absl::string_view key,
                              const v1::LeaseTicket& ticket,
                              absl::string_view job_id,
                              absl::string_view worker_id,
                              std::initializer_list<v1::WorkerRole> roles,
                              int64_t now_unix_ms) {
  if (ticket.mac().empty()) {
    return absl::PermissionDeniedError(absl::StrCat(
        "lease_ticket: required; a worker writes to ", job_id,
        " only with the lease ticket of its assignment"));
  }
  if (key.empty() || !SameMac(Mac(key, ticket), ticket.mac())) {
    return absl::PermissionDeniedError(
        "lease_ticket: not signed by this deployment's coordinator");
  }
  if (ticket.job_id() != job_id) {
    return absl::PermissionDeniedError(
        absl::StrCat("lease_ticket: a lease on ", ticket.job_id(),
                     ", not on job_id ", job_id));
  }
  if (!worker_id.empty() && ticket.worker_id() != worker_id) {
    return absl::PermissionDeniedError(
        absl::StrCat("lease_ticket: granted to ", ticket.worker_id(),
                     ", not to worker_id ", worker_id));
  }
  if (std::find(roles.begin(), roles.end(), ticket.role()) == roles.end()) {
    return absl::PermissionDeniedError(
        absl::StrCat("lease_ticket: a ", v1::WorkerRole_Name(ticket.role()),
                     " lease does not write here"));
  }
  const int64_t until =
      ticket.expiry_unix_ms() + std::max<int64_t>(0, ticket.grace_ms());
  if (now_unix_ms > until) {
    return absl::FailedPreconditionError(absl::StrCat(
        "lease_ticket: ", ticket.worker_id(), "'s lease on ", job_id,
        " ended at ", FormatUnixMs(ticket.expiry_unix_ms()),
        " (writes in flight were taken until ", FormatUnixMs(until),
        "); the worker takes its assignments from its next heartbeat"));
  }
  return absl::OkStatus();
}

}  // namespace mmapzero::security
