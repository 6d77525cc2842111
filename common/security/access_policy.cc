#include "common/security/access_policy.h"

#include <grpc/grpc_security_constants.h>
#include <grpcpp/security/auth_context.h>

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace mmapzero::security {
namespace {

constexpr absl::string_view kClientMethods[] = {
    "SubmitJob",  "ListJobs",        "GetJob",        "WatchJob",
    "CancelJob",  "GetBestSolution", "DeleteJob",     "ExtendJob",
    "ResumeJob",  "GetJobDetails",   "GetStats",      "ListNetworks",
    "GetNetwork", "ExportNetwork",   "ImportNetwork", "DeleteNetwork"};
constexpr absl::string_view kWorkerMethods[] = {
    "Register",           "Heartbeat",      "ReportSolution",
    "InsertTrajectories", "SampleBatch",    "SampleForReanalyse",
    "UpdateTargets",      "GetStats",       "GetLatestVersion",
    "FetchParameters",    "FetchWorkload",  "FetchJobNetwork",
    "ReportJobNetwork"};

template <size_t N>
bool Contains(const absl::string_view (&methods)[N], absl::string_view method) {
  for (absl::string_view listed : methods) {
    if (listed == method) return true;
  }
  return false;
}

// The verified certificate's subject ("" without one).
std::string CertificateSubject(const grpc::ServerContext& context) {
  const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (auth == nullptr) return "";
  for (const grpc::string_ref& subject :
       auth->FindPropertyValues(GRPC_X509_SUBJECT_PROPERTY_NAME)) {
    return std::string(subject.data(), subject.size());
  }
  return "";
}

std::optional<Role> CertificateRole(const grpc::ServerContext& context) {
  const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (auth == nullptr) return std::nullopt;
  for (const grpc::string_ref& subject :
       auth->FindPropertyValues(GRPC_X509_SUBJECT_PROPERTY_NAME)) {
    std::optional<Role> role =
        RoleFromSubject(absl::string_view(subject.data(), subject.size()));
    if (role.has_value()) return role;
  }
  return std::nullopt;
}

bool HasCertificate(const grpc::ServerContext& context) {
  const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  return auth != nullptr &&
         !auth->FindPropertyValues(GRPC_X509_PEM_CERT_PROPERTY_NAME).empty();
}

std::optional<Role> TokenRole(const grpc::ServerContext& context,
                              const TransportSecurity& security) {
  const auto& metadata = context.client_metadata();
  const auto found = metadata.find("authorization");
  if (found == metadata.end()) return std::nullopt;
  const absl::string_view value(found->second.data(), found->second.size());
  constexpr absl::string_view kBearer = "Bearer ";
  if (!absl::StartsWith(value, kBearer)) return std::nullopt;
  const auto token =
      security.accepted_tokens.find(std::string(value.substr(kBearer.size())));
  if (token == security.accepted_tokens.end()) return std::nullopt;
  return token->second;
}

}  // namespace

bool RoleMayCall(Role role, absl::string_view method) {
  switch (role) {
    case Role::kAdmin:
      return Contains(kClientMethods, method) ||
             Contains(kWorkerMethods, method);
    case Role::kClient:
      return Contains(kClientMethods, method);
    case Role::kWorker:
      return Contains(kWorkerMethods, method);
  }
  return false;
}

absl::StatusOr<Role> CallerRole(const grpc::ServerContext& context,
                                const TransportSecurity& security) {
  if (security.tls()) {
    if (std::optional<Role> role = CertificateRole(context)) return *role;
  }
  if (!security.accepted_tokens.empty()) {
    if (std::optional<Role> role = TokenRole(context, security)) return *role;
  }
  if (security.tls() && HasCertificate(context)) {
    return absl::UnauthenticatedError(
        "the client certificate names no role (its subject needs OU=client, "
        "OU=worker or OU=admin)");
  }
  return absl::UnauthenticatedError(
      security.accepted_tokens.empty()
          ? "no client certificate: this server takes mutual TLS"
          : "no client certificate and no accepted bearer token");
}

absl::StatusOr<CallerIdentity> IdentifyCaller(
    const grpc::ServerContext& context, const TransportSecurity& security) {
  if (!security.authenticates()) return CallerIdentity{};
  absl::StatusOr<Role> role = CallerRole(context, security);
  if (!role.ok()) return role.status();
  if (security.tls()) {
    const std::string subject = CertificateSubject(context);
    if (!subject.empty() && RoleFromSubject(subject).has_value()) {
      return CallerIdentity{subject, *role};
    }
  }
  return CallerIdentity{absl::StrCat("token:", RoleName(*role)), *role};
}

absl::Status Authorize(const grpc::ServerContext& context,
                       absl::string_view method,
                       const TransportSecurity& security) {
  if (!security.authenticates()) return absl::OkStatus();
  absl::StatusOr<Role> role = CallerRole(context, security);
  if (!role.ok()) return role.status();
  if (!RoleMayCall(*role, method)) {
    return absl::PermissionDeniedError(
        absl::StrCat("role '", RoleName(*role), "' may not call ", method));
  }
  return absl::OkStatus();
}

}  // namespace mmapzero::security
