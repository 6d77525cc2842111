// The client's side of moving a network file over gRPC in NetworkChunk
// pieces (proto/network.proto): reading a server stream (ExportNetwork,
// FetchJobNetwork) back into the file's bytes, and writing the bytes as a
// client stream (ImportNetwork, ReportJobNetwork), every message carrying
// one chunk with the total and the CRC32C of the whole. The coordinator's
// side is coordinator/network_chunks.h.
#ifndef MMAPZERO_COMMON_RPC_NETWORK_STREAM_H_
#define MMAPZERO_COMMON_RPC_NETWORK_STREAM_H_

#include <grpcpp/support/sync_stream.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "common/rpc/chunked_bytes.h"
#include "common/rpc/grpc_status.h"
#include "common/rpc/parameter_client.h"
#include "proto/network.pb.h"

namespace mmapzero::rpc {

inline constexpr int64_t kNetworkUploadChunkBytes = 1 << 20;

// Whether `bytes` start like a network file: a LibTorch archive is a zip
// file, which starts with a local file header ("PK\3\4"). The cheap
// check mmapctl and the coordinator make before they send or keep a
// network; the learner that loads one checks its sizes and features.
inline bool LooksLikeNetworkFile(absl::string_view bytes) {
  return absl::StartsWith(bytes, absl::string_view("PK\x03\x04", 4));
}

// Reads every message of `reader` (Read until false) and puts the chunks
// back together: `chunk_of(message)` is the message's NetworkChunk, or
// null when it carries none. The first message goes to `*first` (when not
// null); `*any` says whether there was one. "" when no chunk came; the
// chunks' first error (they do not fit, pass `max_bytes`, miss the CRC32C
// of the last one) after reading to the end. The client's streams and the
// coordinator's both read this way.
template <typename Message, typename Reader, typename ChunkOf>
absl::StatusOr<std::string> AssembleNetworkChunks(Reader& reader,
                                                  int64_t max_bytes,
                                                  ChunkOf&& chunk_of,
                                                  Message* first, bool* any) {
  ChunkAssembler assembler(max_bytes);
  Message message;
  uint32_t crc32c = 0;
  absl::Status damaged;
  *any = false;
  while (reader.Read(&message)) {
    if (!*any && first != nullptr) *first = message;
    *any = true;
    const mmapzero::v1::NetworkChunk* chunk = chunk_of(message);
    if (chunk == nullptr) continue;
    crc32c = chunk->crc32c();
    absl::Status added =
        assembler.Add(chunk->offset(), chunk->total_bytes(), chunk->data());
    if (!added.ok() && damaged.ok()) damaged = added;  // read on to the end
  }
  if (!damaged.ok()) return damaged;
  if (!assembler.started()) return std::string();
  return assembler.Finish(crc32c);
}

// Reads the stream to its end and returns the bytes: the call's status
// when it failed, DataLoss when the chunks do not fit together, pass
// `max_bytes` or miss their CRC32C.
absl::StatusOr<std::string> ReadNetworkStream(
    grpc::ClientReaderInterface<mmapzero::v1::NetworkChunk>* reader,
    int64_t max_bytes);

// Writes `first` with the first chunk of `bytes`, then a message per
// further chunk (copies of `first` with only the chunk set), and closes
// the writing side. False when the server ended the call early (its
// status, from Finish, says why).
template <typename Message>
bool WriteNetworkStream(grpc::ClientWriterInterface<Message>* writer,
                        Message first, const std::string& bytes) {
  const int64_t total = static_cast<int64_t>(bytes.size());
  const uint32_t crc32c = Crc32c(bytes);
  int64_t offset = 0;
  bool ok = true;
  do {
    Message message;
    if (offset == 0) message = first;
    const int64_t size = std::min(kNetworkUploadChunkBytes, total - offset);
    mmapzero::v1::NetworkChunk* chunk = message.mutable_chunk();
    chunk->set_offset(offset);
    chunk->set_total_bytes(total);
    chunk->set_data(bytes.data() + offset, static_cast<size_t>(size));
    chunk->set_crc32c(crc32c);
    ok = writer->Write(message);
    offset += size;
  } while (ok && offset < total);
  return writer->WritesDone() && ok;
}

}  // namespace mmapzero::rpc

#endif  // MMAPZERO_COMMON_RPC_NETWORK_STREAM_H_
