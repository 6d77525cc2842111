// WorkerService over gRPC (proto/worker.proto): registration, heartbeats
// and solution reports, each translated to a Coordinator call through
// ServeUnary (rpc_handler.h), the workload stream (chunked_bytes.h) and a
// job's networks both ways (network_chunks.h).
#ifndef MMAPZERO_COORDINATOR_WORKER_SERVICE_H_
#define MMAPZERO_COORDINATOR_WORKER_SERVICE_H_

#include "coordinator/coordinator.h"
#include "common/rpc/rpc_handler.h"
#include "proto/worker.grpc.pb.h"

namespace mmapzero::coordinator {

using rpc::ServeUnary;
using rpc::RpcObserver;

inline constexpr int kDefaultWorkloadChunkBytes = 1 << 20;
inline constexpr int kMaxWorkloadChunkBytes = 16 << 20;

class WorkerServiceImpl final : public v1::WorkerService::Service {
 public:
  // `observer` may be null; both must outlive the service.
  WorkerServiceImpl(Coordinator* coordinator, RpcObserver* observer)
      : coordinator_(coordinator), observer_(observer) {}

  grpc::Status Register(grpc::ServerContext* context,
                        const v1::RegisterRequest* request,
                        v1::RegisterResponse* response) override;
  grpc::Status Heartbeat(grpc::ServerContext* context,
                         const v1::HeartbeatRequest* request,
                         v1::HeartbeatResponse* response) override;
  grpc::Status ReportSolution(grpc::ServerContext* context,
                              const v1::ReportSolutionRequest* request,
                              v1::ReportSolutionResponse* response) override;
  grpc::Status FetchWorkload(
      grpc::ServerContext* context, const v1::FetchWorkloadRequest* request,
      grpc::ServerWriter<v1::WorkloadChunk>* writer) override;
  grpc::Status FetchJobNetwork(
      grpc::ServerContext* context, const v1::FetchJobNetworkRequest* request,
      grpc::ServerWriter<v1::NetworkChunk>* writer) override;
  grpc::Status ReportJobNetwork(
      grpc::ServerContext* context,
      grpc::ServerReader<v1::ReportJobNetworkRequest>* reader,
      v1::ReportJobNetworkResponse* response) override;

 private:
  Coordinator* coordinator_;
  RpcObserver* observer_;
};

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_WORKER_SERVICE_H_
