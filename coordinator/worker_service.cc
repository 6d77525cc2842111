#include "coordinator/worker_service.h"

#include <memory>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
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
  const absl::Time start = absl::Now();
  const absl::Status status = [&]() -> absl::Status {
    RETURN_IF_ERROR(rpc::CheckCall(*context, "FetchWorkload"));
    if (request->max_chunk_bytes() < 0 ||
        request->max_chunk_bytes() > kMaxWorkloadChunkBytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "max_chunk_bytes: must be 0 (default, 1 MiB) to ",
          kMaxWorkloadChunkBytes, ", got ", request->max_chunk_bytes()));
    }
    ASSIGN_OR_RETURN(const std::shared_ptr<const SerializedWorkload> workload,
                     coordinator_->WorkloadForWorker(request->worker_id(),
                                                     request->job_id()));
    const int64_t chunk_bytes = request->max_chunk_bytes() > 0
                                    ? request->max_chunk_bytes()
                                    : kDefaultWorkloadChunkBytes;
    return rpc::WriteChunks(
        *context, workload->bytes, chunk_bytes, writer,
        [](int64_t offset, int64_t total, std::string_view piece,
           v1::WorkloadChunk* chunk) {
          chunk->set_offset(offset);
          chunk->set_total_bytes(total);
          chunk->set_data(piece.data(), piece.size());
        });
  }();
  rpc::FinishRpc("FetchWorkload", status, start, observer_);
  return rpc::ToGrpcStatus(status);
}

}  // namespace mmapzero::coordinator
