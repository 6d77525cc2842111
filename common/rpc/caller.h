// Who calls a method that touches what a caller owns (the coordinator's
// jobs and registered networks) or writes to a job (writer_lease.h).
// access_policy.h says which roles may call a method at all; this says
// whose job or network a caller may read, watch, cancel or delete: its
// own, or any for an admin. Ownership is the identity access_policy.h's
// IdentifyCaller gives (the client certificate's subject, or
// "token:ROLE"). When the server authenticates nobody, everyone owns
// everything.
#ifndef MMAPZERO_COMMON_RPC_CALLER_H_
#define MMAPZERO_COMMON_RPC_CALLER_H_

#include <string>

#include "absl/status/statusor.h"

namespace grpc {
class ServerContext;
}  // namespace grpc

namespace mmapzero::rpc {

struct Caller {
  std::string identity;  // "" when nobody is authenticated
  bool authenticated = false;
  bool admin = false;

  // Whether the caller may act on what `owner` owns. Jobs stored before
  // jobs had owners have owner "": an admin's.
  bool Owns(const std::string& owner) const {
    return OwnsEverything() || owner == identity;
  }
  // Nobody authenticated, or an admin.
  bool OwnsEverything() const { return !authenticated || admin; }
};

// The caller of `context` under the process's transport security
// (transport_security.h); the errors of security::IdentifyCaller.
absl::StatusOr<Caller> CallerOf(const grpc::ServerContext& context);

}  // namespace mmapzero::rpc

#endif  // MMAPZERO_COMMON_RPC_CALLER_H_
