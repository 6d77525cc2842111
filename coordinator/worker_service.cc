#include "coordinator/worker_service.h"

#include <memory>
#include <string_view>

#include "common/base/status_macros.h"
#include "common/rpc/chunked_bytes.h"

namespace mmapzero::coordinator {

using rpc::ServeUnary;

grpc::Status WorkerServiceImpl::Register(grpc::ServerContext* context,
                                         const v1::RegisterRequest* request,
                                         v1::RegisterResponse* response) {
  return ServeUnary(
      "Register", *context, observer_,
      [&] { return coordinator_->Register(*request); }, response);
}

grpc::Status WorkerServiceImpl::Heartbeat(grpc::ServerContext* context,
                                          const v1::HeartbeatRequest* request,
                                          v1::HeartbeatResponse* response) {
  return ServeUnary(
      "Heartbeat", *context, observer_,
      [&] { return coordinator_->Heartbeat(*request); }, response);
}

grpc::Status WorkerServiceImpl::ReportSolution(
    grpc::ServerContext* context, const v1::ReportSolutionRequest* request,
    v1::ReportSolutionResponse* response) {
  return ServeUnary(
      "ReportSolution", *context, observer_,
      [&] { return coordinator_->ReportSolution(*request); }, response);
}

grpc::Status WorkerServiceImpl::FetchWorkload(
    grpc::ServerContext* context, const v1::FetchWorkloadRequest* request,
    grpc::ServerWriter<v1::WorkloadChunk>* writer) {
  return rpc::ServeStream(
      "FetchWorkload", *context, observer_, [&]() -> absl::Status {
        ASSIGN_OR_RETURN(const int64_t chunk_bytes,
                         rpc::ChunkBytesOf(request->max_chunk_bytes(),
                                           kDefaultWorkloadChunkBytes,
                                           kMaxWorkloadChunkBytes));
        ASSIGN_OR_RETURN(
            const std::shared_ptr<const SerializedWorkload> workload,
            coordinator_->WorkloadForWorker(request->worker_id(),
                                            request->job_id()));
        return rpc::WriteChunks(
            *context, workload->bytes, chunk_bytes, writer,
            [](int64_t offset, int64_t total, std::string_view piece,
               v1::WorkloadChunk* chunk) {
              chunk->set_offset(offset);
              chunk->set_total_bytes(total);
              chunk->set_data(piece.data(), piece.size());
            });
      });
}

}  // namespace mmapzero::coordinator
