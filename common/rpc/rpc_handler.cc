#include "common/rpc/rpc_handler.h"

#include <chrono>
#include <string>

#include "common/rpc/log_line.h"

namespace mmapzero::rpc {

absl::Status CheckCallAlive(const grpc::ServerContext& context) {
  if (context.deadline() <= std::chrono::system_clock::now()) {
    return absl::DeadlineExceededError("the call's deadline has passed");
  }
  if (context.IsCancelled()) {
    return absl::CancelledError("the client cancelled the call");
  }
  return absl::OkStatus();
}

void FinishRpc(absl::string_view method, const absl::Status& status,
               absl::Time start, RpcObserver* observer) {
  if (observer != nullptr) {
    observer->OnRpc(method, status.code(), absl::Now() - start);
  }
  switch (status.code()) {
    case absl::StatusCode::kInternal:
    case absl::StatusCode::kDataLoss:
    case absl::StatusCode::kUnknown:
    case absl::StatusCode::kUnavailable:
      LogLine("warning", "rpc_failed",
              {{"method", std::string(method)},
               {"code", absl::StatusCodeToString(status.code())},
               {"message", std::string(status.message())}});
      break;
    default:
      break;
  }
}

}  // namespace mmapzero::rpc
