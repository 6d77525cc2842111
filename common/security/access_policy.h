// Which role may call which method, in one table, and the check every
// handler makes before it does anything (rpc_handler.h): who is calling
// (the client certificate's role under TLS, else a bearer token's) and
// whether that role may call this method. Methods not in the table are
// refused. With no authentication configured (transport_security.h) every
// caller may call everything.
//
//   client: SubmitJob, ListJobs, GetJob, WatchJob, CancelJob,
//           GetBestSolution, DeleteJob, ExtendJob, ResumeJob,
//           GetJobDetails, GetStats, ListNetworks, GetNetwork, ExportNetwork,
//           ImportNetwork, DeleteNetwork (its own)
//   worker: Register, Heartbeat, ReportSolution, InsertTrajectories,
//           SampleBatch, SampleForReanalyse, UpdateTargets, GetStats,
//           GetLatestVersion, FetchParameters, FetchWorkload,
//           FetchJobNetwork, ReportJobNetwork
//   admin:  everything
#ifndef MMAPZERO_COMMON_SECURITY_ACCESS_POLICY_H_
#define MMAPZERO_COMMON_SECURITY_ACCESS_POLICY_H_

#include <grpcpp/server_context.h>

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/security/access_role.h"
#include "common/security/transport_security.h"

namespace mmapzero::security {

// Whether `role` may call `method` (the method's short name, "SubmitJob").
bool RoleMayCall(Role role, absl::string_view method);

// The caller's role under `security`: the verified client certificate's
// OU, else the bearer token's role. Unauthenticated when neither is there
// or the certificate names no role, naming what was missing.
absl::StatusOr<Role> CallerRole(const grpc::ServerContext& context,
                                const TransportSecurity& security);

// Who is calling, for what a caller owns (registered networks): the
// verified client certificate's subject ("CN=alice,OU=client,O=...") or
// "token:ROLE" for a bearer token. Name "" and no role when `security`
// authenticates nobody; the errors of CallerRole otherwise.
struct CallerIdentity {
  std::string name;
  std::optional<Role> role;
};
absl::StatusOr<CallerIdentity> IdentifyCaller(
    const grpc::ServerContext& context, const TransportSecurity& security);

// OK when `security` authenticates nobody, or the caller's role may call
// `method`; Unauthenticated (CallerRole) or PermissionDenied naming the
// role and the method.
absl::Status Authorize(const grpc::ServerContext& context,
                       absl::string_view method,
                       const TransportSecurity& security);

}  // namespace mmapzero::security

#endif  // MMAPZERO_COMMON_SECURITY_ACCESS_POLICY_H_
