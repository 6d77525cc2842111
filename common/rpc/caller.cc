#include "common/rpc/caller.h"

#include <grpcpp/server_context.h>

#include <memory>
#include <utility>

#include "common/base/status_macros.h"
#include "common/security/access_policy.h"
#include "common/security/transport_security.h"

namespace mmapzero::rpc {

absl::StatusOr<Caller> CallerOf(const grpc::ServerContext& context) {
  const std::shared_ptr<const security::TransportSecurity> transport =
      security::ProcessTransportSecurity();
  ASSIGN_OR_RETURN(security::CallerIdentity identity,
                   security::IdentifyCaller(context, *transport));
  return Caller{.identity = std::move(identity.name),
                .authenticated = transport->authenticates(),
                .admin = identity.role == security::Role::kAdmin};
}

}  // namespace mmapzero::rpc
