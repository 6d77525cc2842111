// What every unary handler of a service does around its core call,
// written once: refuse a call whose deadline has passed, whose client is
// gone or whose caller may not call it (access_policy.h), run the core call, move the result into the response, map the
// status (grpc_status.h), tell the metrics, and log server-side failures.
// Handlers themselves only translate.
#ifndef MMAPZERO_COMMON_RPC_RPC_HANDLER_H_
#define MMAPZERO_COMMON_RPC_RPC_HANDLER_H_

#include <grpcpp/server_context.h>

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/rpc/grpc_status.h"

namespace mmapzero::rpc {

// Sees every finished call (metrics). Thread-safe.
class RpcObserver {
 public:
  virtual ~RpcObserver() = default;
  virtual void OnRpc(absl::string_view method, absl::StatusCode code,
                     absl::Duration latency) = 0;
};

// OK, or DeadlineExceeded / Cancelled when the call is already over, or
// Unauthenticated / PermissionDenied when the caller may not call `method`
// (its short name, "SubmitJob") under the process's transport security.
absl::Status CheckCall(const grpc::ServerContext& context,
                       absl::string_view method);

// Reports to `observer` (may be null) and logs codes that mean the server
// failed (INTERNAL, DATA_LOSS, UNKNOWN, UNAVAILABLE) or refused the caller
// (UNAUTHENTICATED, PERMISSION_DENIED).
void FinishRpc(absl::string_view method, const absl::Status& status,
               absl::Time start, RpcObserver* observer);

// `call` returns absl::StatusOr<Response>.
template <typename Response, typename Call>
grpc::Status ServeUnary(absl::string_view method,
                        const grpc::ServerContext& context,
                        RpcObserver* observer, Call&& call,
                        Response* response) {
  const absl::Time start = absl::Now();
  absl::Status status = CheckCall(context, method);
  if (status.ok()) {
    absl::StatusOr<Response> result = std::forward<Call>(call)();
    status = result.status();
    if (result.ok()) *response = *std::move(result);
  }
  FinishRpc(method, status, start, observer);
  return ToGrpcStatus(status);
}

// The same around a server-streaming call: `body` returns absl::Status
// (it writes its own messages) and runs only when CheckCall passes.
template <typename Body>
grpc::Status ServeStream(absl::string_view method,
                         const grpc::ServerContext& context,
                         RpcObserver* observer, Body&& body) {
  const absl::Time start = absl::Now();
  absl::Status status = CheckCall(context, method);
  if (status.ok()) status = std::forward<Body>(body)();
  FinishRpc(method, status, start, observer);
  return ToGrpcStatus(status);
}

}  // namespace mmapzero::rpc

#endif  // MMAPZERO_COMMON_RPC_RPC_HANDLER_H_
