// The client side of gRPC's health check (grpc.health.v1.Health/Check), as
// `mmapctl local` uses it to tell when a service it started is ready and
// the services' tests use it to read what they serve. The two messages are
// tiny and fixed, so they are encoded by hand on a generic stub instead of
// linking generated health stubs (Debian's gRPC ships none for C++).
//
// The call is made through a completion queue this thread drains, as
// generated blocking stubs do, not with a callback: ThreadSanitizer cannot
// see the synchronisation inside an uninstrumented gRPC between a
// callback's set-up on the caller's thread and its run on gRPC's own, and
// reported the pair as a data race.
#ifndef MMAPZERO_COMMON_RPC_HEALTH_CHECK_CLIENT_H_
#define MMAPZERO_COMMON_RPC_HEALTH_CHECK_CLIENT_H_

#include <grpcpp/channel.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace mmapzero::rpc {

// HealthCheckResponse.ServingStatus, as the server answers it.
enum class ServingStatus {
  kUnknown = 0,
  kServing = 1,
  kNotServing = 2,
  kServiceUnknown = 3,
};

// The serving status of `service` ("" for the server as a whole) behind
// `channel`, waiting at most `deadline`. The call's own gRPC error when it
// fails (UNAVAILABLE for nothing listening, NOT_FOUND for a service the
// server does not know); INVALID_ARGUMENT for a service name over 127
// bytes; INTERNAL for an answer that is not a HealthCheckResponse.
absl::StatusOr<ServingStatus> CheckServingStatus(
    const std::shared_ptr<grpc::Channel>& channel, const std::string& service,
    absl::Duration deadline);

}  // namespace mmapzero::rpc

#endif  // MMAPZERO_COMMON_RPC_HEALTH_CHECK_CLIENT_H_
