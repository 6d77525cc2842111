#include "coordinator/worker_service.h"

#include <memory>
#include <string_view>

#include "common/base/status_macros.h"
#include "common/rpc/chunked_bytes.h"
#include "coordinator/network_chunks.h"

namespace mmapzero::coordinator {

using rpc::ServeUnary;

namespace {

// Coordinator::CheckWorkerSecret for the caller of `context`: the first
// step of every call that names a worker id.
absl::Status CheckSecret(const Coordinator& coordinator,
                         const grpc::ServerContext& context,
                         absl::string_view method, const std::string& worker_id,
                         const std::string& secret) {
  ASSIGN_OR_RETURN(const Caller caller, CallerOf(context));
  return coordinator.CheckWorkerSecret(caller, method, worker_id, secret);
}

}  // namespace

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
      [&]() -> absl::StatusOr<v1::HeartbeatResponse> {
        const absl::Status proven =
            CheckSecret(*coordinator_, *context, "Heartbeat",
                        request->worker_id(), request->worker_secret());
        if (absl::IsPermissionDenied(proven)) {
          // Answered as for a worker it does not know: a worker of a
          // coordinator that lost its data (another key, ids given again)
          // registers afresh, and an impostor learns nothing either way.
          return absl::NotFoundError(
              absl::StrCat("worker_id: no worker '", request->worker_id(),
                           "' with this worker_secret; register again"));
        }
        RETURN_IF_ERROR(proven);
        return coordinator_->Heartbeat(*request);
      },
      response);
}

grpc::Status WorkerServiceImpl::ReportSolution(
    grpc::ServerContext* context, const v1::ReportSolutionRequest* request,
    v1::ReportSolutionResponse* response) {
  return ServeUnary(
      "ReportSolution", *context, observer_,
      [&]() -> absl::StatusOr<v1::ReportSolutionResponse> {
        ASSIGN_OR_RETURN(const Caller caller, CallerOf(*context));
        return coordinator_->ReportSolution(*request, caller);
      },
      response);
}

grpc::Status WorkerServiceImpl::FetchWorkload(
    grpc::ServerContext* context, const v1::FetchWorkloadRequest* request,
    grpc::ServerWriter<v1::WorkloadChunk>* writer) {
  return rpc::ServeStream(
      "FetchWorkload", *context, observer_, [&]() -> absl::Status {
        RETURN_IF_ERROR(CheckSecret(*coordinator_, *context, "FetchWorkload",
                                    request->worker_id(),
                                    request->worker_secret()));
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

grpc::Status WorkerServiceImpl::FetchJobNetwork(
    grpc::ServerContext* context, const v1::FetchJobNetworkRequest* request,
    grpc::ServerWriter<v1::NetworkChunk>* writer) {
  return rpc::ServeStream(
      "FetchJobNetwork", *context, observer_, [&]() -> absl::Status {
        RETURN_IF_ERROR(CheckSecret(*coordinator_, *context, "FetchJobNetwork",
                                    request->worker_id(),
                                    request->worker_secret()));
        ASSIGN_OR_RETURN(const std::shared_ptr<const NetworkBytes> network,
                         coordinator_->StartNetworkForWorker(
                             request->worker_id(), request->job_id()));
        return WriteNetworkChunks(*context, *network,
                                  request->max_chunk_bytes(), writer);
      });
}

grpc::Status WorkerServiceImpl::ReportJobNetwork(
    grpc::ServerContext* context,
    grpc::ServerReader<v1::ReportJobNetworkRequest>* reader,
    v1::ReportJobNetworkResponse* response) {
  return rpc::ServeStream(
      "ReportJobNetwork", *context, observer_, [&]() -> absl::Status {
        v1::ReportJobNetworkRequest first;
        ASSIGN_OR_RETURN(
            std::string bytes,
            ReadNetworkChunks(reader, &first,
                              [&](const v1::ReportJobNetworkRequest& message) {
                                return CheckSecret(*coordinator_, *context,
                                                   "ReportJobNetwork",
                                                   message.worker_id(),
                                                   message.worker_secret());
                              }));
        ASSIGN_OR_RETURN(*response, coordinator_->ReportJobNetwork(
                                        first.worker_id(), first.job_id(),
                                        first.learner_step(), std::move(bytes)));
        return absl::OkStatus();
      });
}

}  // namespace mmapzero::coordinator
