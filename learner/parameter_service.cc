#include "learner/parameter_service.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/rpc/chunked_bytes.h"
#include "common/rpc/grpc_status.h"

namespace mmapzero::learner {

ParameterServiceImpl::ParameterServiceImpl(const worker::ParameterStore* store,
                                           ParameterServiceOptions options,
                                           rpc::RpcObserver* observer)
    : store_(store), options_(options), observer_(observer) {}

grpc::Status ParameterServiceImpl::GetLatestVersion(
    grpc::ServerContext* context, const v1::GetLatestVersionRequest* request,
    v1::ParameterVersion* response) {
  return rpc::ServeUnary(
      "GetLatestVersion", *context, observer_,
      [&]() -> absl::StatusOr<v1::ParameterVersion> {
        absl::StatusOr<worker::ParameterSnapshot> snapshot =
            store_->Find(request->job_id(), 0);
        if (!snapshot.ok()) return snapshot.status();
        v1::ParameterVersion version;
        version.set_job_id(request->job_id());
        version.set_version(snapshot->version);
        version.set_total_bytes(static_cast<int64_t>(snapshot->bytes->size()));
        version.set_format(snapshot->format);
        version.set_crc32c(snapshot->crc32c);
        return version;
      },
      response);
}

absl::Status ParameterServiceImpl::Stream(
    const grpc::ServerContext& context,
    const v1::FetchParametersRequest& request,
    grpc::ServerWriter<v1::ParameterChunk>* writer) {
  if (const absl::Status alive = rpc::CheckCall(context, "FetchParameters"); !alive.ok()) {
    return alive;
  }
  if (request.max_chunk_bytes() < 0 ||
      request.max_chunk_bytes() > options_.max_chunk_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_chunk_bytes: must be 0 (default) to ", options_.max_chunk_bytes,
        ", got ", request.max_chunk_bytes()));
  }
  if (request.version() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "version: must be >= 0 (0: the latest), got ", request.version()));
  }
  absl::StatusOr<worker::ParameterSnapshot> snapshot =
      store_->Find(request.job_id(), request.version());
  if (!snapshot.ok()) return snapshot.status();
  const int64_t chunk_bytes = request.max_chunk_bytes() > 0
                                  ? request.max_chunk_bytes()
                                  : options_.default_chunk_bytes;
  return rpc::WriteChunks(
      context, *snapshot->bytes, chunk_bytes, writer,
      [&](int64_t offset, int64_t total, std::string_view piece,
          v1::ParameterChunk* chunk) {
        chunk->set_version(snapshot->version);
        chunk->set_offset(offset);
        chunk->set_total_bytes(total);
        chunk->set_data(piece.data(), piece.size());
        if (offset == 0) {
          chunk->set_format(snapshot->format);
          chunk->set_crc32c(snapshot->crc32c);
        }
      });
}

grpc::Status ParameterServiceImpl::FetchParameters(
    grpc::ServerContext* context, const v1::FetchParametersRequest* request,
    grpc::ServerWriter<v1::ParameterChunk>* writer) {
  const absl::Time start = absl::Now();
  const absl::Status status = Stream(*context, *request, writer);
  rpc::FinishRpc("FetchParameters", status, start, observer_);
  return rpc::ToGrpcStatus(status);
}

}  // namespace mmapzero::learner
