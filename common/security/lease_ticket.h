// Lease tickets (proto/lease_ticket.proto): the coordinator signs each
// lease it grants with a key only it and the replay servers hold, and
// whoever takes a write to a job checks the ticket that comes with it, on
// its own, without a call to the coordinator. A worker that holds no lease
// on a job then cannot write to it, even though every worker shares one
// certificate role.
//
//   an unsigned, forged or another job's or worker's ticket -> PERMISSION_DENIED
//   a ticket past its expiry and its grace (a lease lost to expiry or
//     rotation)                                             -> FAILED_PRECONDITION
#ifndef MMAPZERO_COMMON_SECURITY_LEASE_TICKET_H_
#define MMAPZERO_COMMON_SECURITY_LEASE_TICKET_H_

#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/lease_ticket.pb.h"

namespace mmapzero::security {

// The size of a lease key in bytes.
inline constexpr int kLeaseKeyBytes = 32;

// A fresh random key (OpenSSL's RAND_bytes); Internal if it has none.
absl::StatusOr<std::string> NewLeaseKey();

// `ticket`'s fields signed with `key` (sets ticket.mac).
void SignLeaseTicket(absl::string_view key, v1::LeaseTicket& ticket);

// OK when `ticket` is signed with `key`, names `job_id` (and `worker_id`
// unless it is ""), one of `roles`, and `now_unix_ms` is within its expiry
// plus its grace; otherwise the errors above, naming the field
// `lease_ticket` and what did not fit.
absl::Status CheckLeaseTicket(absl::string_view key,
                              const v1::LeaseTicket& ticket,
                              absl::string_view job_id,
                              absl::string_view worker_id,
                              std::initializer_list<v1::WorkerRole> roles,
                              int64_t now_unix_ms);

}  // namespace mmapzero::security

#endif  // MMAPZERO_COMMON_SECURITY_LEASE_TICKET_H_
