#include "common/rpc/writer_lease.h"

#include "common/security/access_policy.h"
#include "common/security/lease_ticket.h"
#include "common/security/transport_security.h"
#include "common/service/log_line.h"

namespace mmapzero::rpc {

absl::StatusOr<bool> NeedsLeaseTicket(const grpc::ServerContext& context,
                                      std::string* identity) {
  const security::TransportSecurity& security =
      *security::ProcessTransportSecurity();
  if (!security.authenticates()) return false;
  absl::StatusOr<security::CallerIdentity> caller =
      security::IdentifyCaller(context, security);
  if (!caller.ok()) return caller.status();
  *identity = caller->name;
  return caller->role != security::Role::kAdmin;
}

absl::Status CheckWriterLease(const LeaseWrite& write, absl::string_view key,
                              std::initializer_list<v1::WorkerRole> roles,
                              int64_t now_unix_ms) {
  static const v1::LeaseTicket kNoTicket;
  absl::Status status =
      key.empty()
          ? absl::UnavailableError(
                "this server has no lease key yet (a replay server gets it "
                "when it registers with its coordinator); retry")
          : security::CheckLeaseTicket(
                key, write.ticket != nullptr ? *write.ticket : kNoTicket,
                write.job_id, write.worker_id, roles, now_unix_ms);
  if (!status.ok()) {
    service::LogLine("warning", "refused",
                     {{"method", std::string(write.method)},
                      {"caller", std::string(write.caller)},
                      {"worker", std::string(write.worker_id)},
                      {"job", std::string(write.job_id)},
                      {"code", absl::StatusCodeToString(status.code())},
                      {"reason", std::string(status.message())}});
  }
  return status;
}

}  // namespace mmapzero::rpc
