#include "common/rpc/writer_lease.h"

#include "common/security/lease_ticket.h"
#include "common/service/log_line.h"

namespace mmapzero::rpc {

absl::Status CheckWriterLease(const Caller& caller, const LeaseWrite& write,
                              absl::string_view key,
                              std::initializer_list<v1::WorkerRole> roles,
                              int64_t now_unix_ms) {
  if (caller.OwnsEverything()) return absl::OkStatus();
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
                      {"caller", caller.identity},
                      {"worker", std::string(write.worker_id)},
                      {"job", std::string(write.job_id)},
                      {"code", absl::StatusCodeToString(status.code())},
                      {"reason", std::string(status.message())}});
  }
  return status;
}

}  // namespace mmapzero::rpc
