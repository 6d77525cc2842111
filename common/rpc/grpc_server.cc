#include "common/rpc/grpc_server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/support/channel_arguments.h>
#include <grpcpp/server_builder.h>

#include "absl/strings/str_cat.h"
#include "common/security/transport_security.h"

namespace mmapzero::rpc {

absl::StatusOr<StartedServer> StartGrpcServer(
    const GrpcServerOptions& options) {
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  StartedServer started;
  builder.AddListeningPort(
      options.listen,
      security::ServerCredentialsFor(*security::ProcessTransportSecurity()),
      &started.port);
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.SetMaxSendMessageSize(options.max_message_bytes);
  for (grpc::Service* service : options.services) {
    builder.RegisterService(service);
  }
  started.server = builder.BuildAndStart();
  if (started.server == nullptr || started.port == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve gRPC on ", options.listen,
                     " (address in use or malformed?)"));
  }
  SetServing(*started.server, options.service_names, true);
  return started;
}

std::shared_ptr<grpc::Channel> InProcessChannel(grpc::Server& server,
                                                int max_message_bytes) {
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(max_message_bytes);
  arguments.SetMaxSendMessageSize(max_message_bytes);
  return server.InProcessChannel(arguments);
}

void SetServing(grpc::Server& server,
                const std::vector<std::string>& service_names, bool serving) {
  grpc::HealthCheckServiceInterface* health = server.GetHealthCheckService();
  if (health == nullptr) return;
  health->SetServingStatus(serving);
  for (const std::string& name : service_names) {
    health->SetServingStatus(name, serving);
  }
}

}  // namespace mmapzero::rpc
