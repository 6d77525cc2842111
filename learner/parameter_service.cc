#include "learner/parameter_service.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
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
  ASSIGN_OR_RETURN(const int64_t chunk_bytes,
                   rpc::ChunkBytesOf(request.max_chunk_bytes(),
                                     options_.default_chunk_bytes,
                                     options_.max_chunk_bytes));
  if (request.version() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "version: must be >= 0 (0: the latest), got ", request.version()));
  }
  ASSIGN_OR_RETURN(const worker::ParameterSnapshot snapshot,
                   store_->Find(request.job_id(), request.version()));
  return rpc::WriteChunks(
      context, *snapshot.bytes, chunk_bytes, writer,
      [&](int64_t offset, int64_t total, std::string_view piece,
          v1::ParameterChunk* chunk) {
        chunk->set_version(snapshot.version);
        chunk->set_offset(offset);
        chunk->set_total_bytes(total);
        chunk->set_data(piece.data(), piece.size());
        if (offset == 0) {
          chunk->set_format(snapshot.format);
          chunk->set_crc32c(snapshot.crc32c);
        }
      });
}

grpc::Status ParameterServiceImpl::FetchParameters(
    grpc::ServerContext* context, const v1::FetchParametersRequest* request,
    grpc::ServerWriter<v1::ParameterChunk>* writer) {
  return rpc::ServeStream("FetchParameters", *context, observer_,
                          [&] { return Stream(*context, *request, writer); });
}

}  // namespace mmapzero::learner
