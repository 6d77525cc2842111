#include "common/rpc/network_stream.h"

#include "absl/strings/str_cat.h"

namespace mmapzero::rpc {

absl::StatusOr<std::string> ReadNetworkStream(
    grpc::ClientReaderInterface<mmapzero::v1::NetworkChunk>* reader,
    int64_t max_bytes) {
  bool any = false;
  absl::StatusOr<std::string> bytes = AssembleNetworkChunks(
      *reader, max_bytes,
      [](const mmapzero::v1::NetworkChunk& chunk) { return &chunk; },
      static_cast<mmapzero::v1::NetworkChunk*>(nullptr), &any);
  const grpc::Status status = reader->Finish();
  if (!status.ok()) return FromGrpcStatus(status);
  if (!bytes.ok()) {
    return absl::DataLossError(
        absl::StrCat("network stream: ", bytes.status().message()));
  }
  return bytes;
}

}  // namespace mmapzero::rpc
