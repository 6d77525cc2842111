// Who may call what. Three roles: a client submits, watches, cancels and
// fetches jobs (mmapctl); a worker registers, heartbeats, reports and moves
// replay data and parameters (the services themselves); an admin may do
// both. A certificate carries its role in the subject's organizational
// unit (OU=worker), a bearer token in the accepted-tokens file.
#ifndef MMAPZERO_COMMON_SECURITY_ACCESS_ROLE_H_
#define MMAPZERO_COMMON_SECURITY_ACCESS_ROLE_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace mmapzero::security {

enum class Role { kClient, kWorker, kAdmin };

// "client", "worker", "admin".
std::string RoleName(Role role);
std::optional<Role> ParseRole(absl::string_view name);

// The role named by the OU attribute of an X.509 subject as gRPC prints it
// ("CN=actor-0,OU=worker,O=mmapzero", RFC 2253 escapes honoured); nullopt
// when there is no OU or it names no role.
std::optional<Role> RoleFromSubject(absl::string_view subject);

}  // namespace mmapzero::security

#endif  // MMAPZERO_COMMON_SECURITY_ACCESS_ROLE_H_
