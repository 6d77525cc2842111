// Starts a service's gRPC server the way every mmapzero service serves:
// on one address (":0" picks a free port), with gRPC health checking (the
// overall status "" and each service's own name) and server reflection,
// and message limits large enough for workloads and trajectories, secured
// as the process's transport security says (transport_security.h).
// SetServing(false) is the first step of a graceful shutdown: load
// balancers and `mmapctl local status` see NOT_SERVING while in-flight
// calls finish.
#ifndef MMAPZERO_COMMON_RPC_GRPC_SERVER_H_
#define MMAPZERO_COMMON_RPC_GRPC_SERVER_H_

#include <grpcpp/impl/codegen/service_type.h>
#include <grpcpp/channel.h>
#include <grpcpp/server.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/rpc/message_limit.h"

namespace mmapzero::rpc {

struct GrpcServerOptions {
  std::string listen = "127.0.0.1:0";
  int max_message_bytes = kMaxMessageBytes;
  std::vector<grpc::Service*> services;    // not owned; outlive the server
  std::vector<std::string> service_names;  // full names, for health
};

struct StartedServer {
  std::unique_ptr<grpc::Server> server;
  int port = 0;
};

// Unavailable naming the address when it cannot be bound.
absl::StatusOr<StartedServer> StartGrpcServer(const GrpcServerOptions& options);

// A channel to `server` inside the process, no socket in between, with
// the same message limits (the handler fuzz targets call through it).
std::shared_ptr<grpc::Channel> InProcessChannel(grpc::Server& server,
                                                int max_message_bytes);

// Sets the overall health status and each of `service_names`'.
void SetServing(grpc::Server& server,
                const std::vector<std::string>& service_names, bool serving);

}  // namespace mmapzero::rpc

#endif  // MMAPZERO_COMMON_RPC_GRPC_SERVER_H_
