// NetworkRegistry over gRPC (proto/network.proto): each handler translates
// the request to a Coordinator call, with the caller's identity
// (access_policy.h) for what it owns; network files travel in chunks
// (network_chunks.h).
#ifndef MMAPZERO_COORDINATOR_NETWORK_REGISTRY_SERVICE_H_
#define MMAPZERO_COORDINATOR_NETWORK_REGISTRY_SERVICE_H_

#include "common/rpc/rpc_handler.h"
#include "coordinator/coordinator.h"
#include "proto/network.grpc.pb.h"

namespace mmapzero::coordinator {

class NetworkRegistryImpl final : public v1::NetworkRegistry::Service {
 public:
  // `observer` may be null; both must outlive the service.
  NetworkRegistryImpl(Coordinator* coordinator, rpc::RpcObserver* observer)
      : coordinator_(coordinator), observer_(observer) {}

  grpc::Status ListNetworks(grpc::ServerContext* context,
                            const v1::ListNetworksRequest* request,
                            v1::ListNetworksResponse* response) override;
  grpc::Status GetNetwork(grpc::ServerContext* context,
                          const v1::GetNetworkRequest* request,
                          v1::NetworkInfo* response) override;
  grpc::Status ExportNetwork(
      grpc::ServerContext* context, const v1::ExportNetworkRequest* request,
      grpc::ServerWriter<v1::NetworkChunk>* writer) override;
  grpc::Status ImportNetwork(
      grpc::ServerContext* context,
      grpc::ServerReader<v1::ImportNetworkRequest>* reader,
      v1::NetworkInfo* response) override;
  grpc::Status DeleteNetwork(grpc::ServerContext* context,
                             const v1::DeleteNetworkRequest* request,
                             v1::DeleteNetworkResponse* response) override;

 private:
  Coordinator* coordinator_;
  rpc::RpcObserver* observer_;
};

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_NETWORK_REGISTRY_SERVICE_H_
