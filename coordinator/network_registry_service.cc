#include "coordinator/network_registry_service.h"

#include <memory>
#include <string>
#include <utility>

#include "common/base/status_macros.h"
#include "common/security/access_policy.h"
#include "common/security/transport_security.h"
#include "coordinator/network_chunks.h"

namespace mmapzero::coordinator {
namespace {

absl::StatusOr<RegistryCaller> CallerOf(const grpc::ServerContext& context) {
  const std::shared_ptr<const security::TransportSecurity> transport =
      security::ProcessTransportSecurity();
  ASSIGN_OR_RETURN(security::CallerIdentity identity,
                   security::IdentifyCaller(context, *transport));
  return RegistryCaller{
      .identity = std::move(identity.name),
      .authenticated = transport->authenticates(),
      .admin = identity.role == security::Role::kAdmin};
}

}  // namespace

grpc::Status NetworkRegistryImpl::ListNetworks(
    grpc::ServerContext* context, const v1::ListNetworksRequest*,
    v1::ListNetworksResponse* response) {
  return rpc::ServeUnary(
      "ListNetworks", *context, observer_,
      [&] { return coordinator_->ListNetworks(); }, response);
}

grpc::Status NetworkRegistryImpl::GetNetwork(
    grpc::ServerContext* context, const v1::GetNetworkRequest* request,
    v1::NetworkInfo* response) {
  return rpc::ServeUnary(
      "GetNetwork", *context, observer_,
      [&] { return coordinator_->GetNetwork(*request); }, response);
}

grpc::Status NetworkRegistryImpl::ExportNetwork(
    grpc::ServerContext* context, const v1::ExportNetworkRequest* request,
    grpc::ServerWriter<v1::NetworkChunk>* writer) {
  return rpc::ServeStream(
      "ExportNetwork", *context, observer_, [&]() -> absl::Status {
        ASSIGN_OR_RETURN(const std::shared_ptr<const NetworkBytes> network,
                         coordinator_->ExportNetwork(request->name()));
        return WriteNetworkChunks(*context, *network,
                                  request->max_chunk_bytes(), writer);
      });
}

grpc::Status NetworkRegistryImpl::ImportNetwork(
    grpc::ServerContext* context,
    grpc::ServerReader<v1::ImportNetworkRequest>* reader,
    v1::NetworkInfo* response) {
  return rpc::ServeStream(
      "ImportNetwork", *context, observer_, [&]() -> absl::Status {
        ASSIGN_OR_RETURN(const RegistryCaller caller, CallerOf(*context));
        v1::ImportNetworkRequest first;
        ASSIGN_OR_RETURN(std::string bytes, ReadNetworkChunks(reader, &first));
        ASSIGN_OR_RETURN(*response, coordinator_->ImportNetwork(
                                        first, std::move(bytes), caller));
        return absl::OkStatus();
      });
}

grpc::Status NetworkRegistryImpl::DeleteNetwork(
    grpc::ServerContext* context, const v1::DeleteNetworkRequest* request,
    v1::DeleteNetworkResponse* response) {
  return rpc::ServeUnary(
      "DeleteNetwork", *context, observer_,
      [&]() -> absl::StatusOr<v1::DeleteNetworkResponse> {
        ASSIGN_OR_RETURN(const RegistryCaller caller, CallerOf(*context));
        return coordinator_->DeleteNetwork(*request, caller);
      },
      response);
}

}  // namespace mmapzero::coordinator
