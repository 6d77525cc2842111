#include "common/rpc/parameter_client.h"

#include <grpcpp/client_context.h>

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/rpc/chunked_bytes.h"
#include "common/rpc/grpc_status.h"

namespace mmapzero::rpc {
namespace {

void SetDeadline(grpc::ClientContext* context, absl::Duration deadline) {
  context->set_deadline(std::chrono::system_clock::now() +
                        absl::ToChronoMilliseconds(deadline));
}

absl::Status Damaged(const std::string& job_id, int64_t version,
                     const std::string& what) {
  return absl::DataLossError(absl::StrCat("parameters of job '", job_id,
                                          "' version ", version, ": ", what));
}

}  // namespace

ParameterClient::ParameterClient(std::shared_ptr<grpc::Channel> channel,
                                 absl::Duration deadline)
    : stub_(v1::ParameterService::NewStub(channel)), deadline_(deadline) {}

absl::StatusOr<int64_t> ParameterClient::LatestVersion(
    const std::string& job_id) {
  v1::GetLatestVersionRequest request;
  request.set_job_id(job_id);
  v1::ParameterVersion response;
  grpc::ClientContext context;
  SetDeadline(&context, deadline_);
  const grpc::Status status =
      stub_->GetLatestVersion(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response.version();
}

absl::StatusOr<ParameterSnapshot> ParameterClient::Fetch(
    const std::string& job_id, int64_t version) {
  v1::FetchParametersRequest request;
  request.set_job_id(job_id);
  request.set_version(version);
  grpc::ClientContext context;
  SetDeadline(&context, deadline_);
  std::unique_ptr<grpc::ClientReader<v1::ParameterChunk>> reader =
      stub_->FetchParameters(&context, request);
  ParameterSnapshot snapshot;
  uint32_t crc32c = 0;
  ChunkAssembler assembler;
  absl::Status damaged;
  v1::ParameterChunk chunk;
  while (reader->Read(&chunk)) {
    if (!damaged.ok()) continue;  // drain; the stream's status comes first
    if (!assembler.started()) {  // the first chunk
      snapshot.version = chunk.version();
      snapshot.format = chunk.format();
      crc32c = chunk.crc32c();
    } else if (chunk.version() != snapshot.version) {
      damaged = Damaged(
          job_id, snapshot.version,
          absl::StrCat("chunk at offset ", chunk.offset(), " is of version ",
                       chunk.version(), " (", chunk.total_bytes(), " bytes)"));
      continue;
    }
    if (const absl::Status added =
            assembler.Add(chunk.offset(), chunk.total_bytes(), chunk.data());
        !added.ok()) {
      damaged = Damaged(job_id, snapshot.version, std::string(added.message()));
    }
  }
  const grpc::Status status = reader->Finish();
  if (!status.ok()) return FromGrpcStatus(status);
  if (!damaged.ok()) return damaged;
  absl::StatusOr<std::string> bytes = assembler.Finish(crc32c);
  if (!bytes.ok()) {
    return Damaged(job_id, assembler.started() ? snapshot.version : version,
                   std::string(bytes.status().message()));
  }
  snapshot.bytes = *std::move(bytes);
  return snapshot;
}

}  // namespace mmapzero::rpc
