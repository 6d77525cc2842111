#include "common/rpc/rpc_handler.h"

#include <chrono>
#include <string>

#include "common/security/access_policy.h"
#include "common/security/transport_security.h"
#include "common/service/log_line.h"

namespace mmapzero::rpc {

absl::Status CheckCall(const grpc::ServerContext& context,
                       absl::string_view method) {
  if (context.deadline() <= std::chrono::system_clock::now()) {
    return absl::DeadlineExceededError("the call's deadline has passed");
  }
  if (context.IsCancelled()) {
    return absl::CancelledError("the client cancelled the call");
  }
  return security::Authorize(context, method,
                             *security::ProcessTransportSecurity());
}

void FinishRpc(absl::string_view method, const absl::Status& status,
               absl::Time start, RpcObserver* observer) {
  if (observer != nullptr) {
    observer->OnRpc(method, status.code(), absl::Now() - start);
  }
  const char* event = nullptr;
  switch (status.code()) {
    case absl::StatusCode::kInternal:
    case absl::StatusCode::kDataLoss:
    case absl::StatusCode::kUnknown:
    case absl::StatusCode::kUnavailable:
      event = "rpc_failed";
      break;
    case absl::StatusCode::kUnauthenticated:
    case absl::StatusCode::kPermissionDenied:
      event = "rpc_refused";
      break;
    default:
      return;
  }
  service::LogLine("warning", event,
                   {{"method", std::string(method)},
                    {"code", absl::StatusCodeToString(status.code())},
                    {"message", std::string(status.message())}});
}

}  // namespace mmapzero::rpc
