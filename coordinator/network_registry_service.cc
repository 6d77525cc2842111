#include "coordinator/network_registry_service.h"

#include <memory>
#include <string>
#include <utility>

#include "common/base/status_macros.h"
#include "coordinator/network_chunks.h"

namespace mmapzero::coordinator {

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
      [&]() -> absl::StatusOr<v1::NetworkInfo> {
        ASSIGN_OR_RETURN(const Caller caller, CallerOf(*context));
        return coordinator_->GetNetwork(*request, caller);
      },
      response);
}

grpc::Status NetworkRegistryImpl::ExportNetwork(
    grpc::ServerContext* context, const v1::ExportNetworkRequest* request,
    grpc::ServerWriter<v1::NetworkChunk>* writer) {
  return rpc::ServeStream(
      "ExportNetwork", *context, observer_, [&]() -> absl::Status {
        ASSIGN_OR_RETURN(const Caller caller, CallerOf(*context));
        ASSIGN_OR_RETURN(const std::shared_ptr<const NetworkBytes> network,
                         coordinator_->ExportNetwork(request->name(), caller));
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
        ASSIGN_OR_RETURN(const Caller caller, CallerOf(*context));
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
        ASSIGN_OR_RETURN(const Caller caller, CallerOf(*context));
        return coordinator_->DeleteNetwork(*request, caller);
      },
      response);
}

}  // namespace mmapzero::coordinator
