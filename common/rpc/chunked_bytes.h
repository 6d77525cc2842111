// Large byte strings over gRPC in pieces: a server stream writes one in
// chunks of at most a set size (every chunk repeating the total), and the
// client puts the chunks back together, checking that they come in order,
// never pass the total and end complete with the sender's CRC32C. Used for
// parameter snapshots (ParameterService.FetchParameters) and workloads
// (WorkerService.FetchWorkload), so that neither meets the message limit.
#ifndef MMAPZERO_COMMON_RPC_CHUNKED_BYTES_H_
#define MMAPZERO_COMMON_RPC_CHUNKED_BYTES_H_

#include <grpcpp/server_context.h>
#include <grpcpp/support/sync_stream.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace mmapzero::rpc {

// Writes `bytes` to `writer` in chunks of at most `chunk_bytes` (> 0): at
// least one chunk, also for no bytes. `fill(offset, total, piece, &chunk)`
// fills each message. Cancelled when the client goes away.
template <typename Chunk, typename Fill>
absl::Status WriteChunks(const grpc::ServerContext& context,
                         const std::string& bytes, int64_t chunk_bytes,
                         grpc::ServerWriter<Chunk>* writer, Fill&& fill) {
  const int64_t total = static_cast<int64_t>(bytes.size());
  int64_t offset = 0;
  do {
    if (context.IsCancelled()) {
      return absl::CancelledError("the client went away");
    }
    const int64_t size = std::min(chunk_bytes, total - offset);
    Chunk chunk;
    fill(offset, total,
         std::string_view(bytes.data() + offset, static_cast<size_t>(size)),
         &chunk);
    if (!writer->Write(chunk)) {
      return absl::CancelledError("the client went away");
    }
    offset += size;
  } while (offset < total);
  return absl::OkStatus();
}

// The chunk size a request asks for (`requested`, 0: `default_bytes`);
// InvalidArgument naming max_chunk_bytes outside 0 to `max_bytes`.
absl::StatusOr<int64_t> ChunkBytesOf(int64_t requested, int64_t default_bytes,
                                     int64_t max_bytes);

// Puts the chunks of one stream back together. Errors say what is wrong in
// a few words ("chunk at offset 5, expected 0"); callers add whose bytes.
class ChunkAssembler {
 public:
  explicit ChunkAssembler(int64_t max_total_bytes = int64_t{1} << 34)
      : max_total_bytes_(max_total_bytes) {}

  // The next chunk. After an error every later call returns it again (keep
  // reading to drain the stream; its status comes first).
  absl::Status Add(int64_t offset, int64_t total_bytes,
                   const std::string& data);
  bool started() const { return total_bytes_ >= 0; }
  // Once the stream has ended: the bytes, complete and with `crc32c`.
  absl::StatusOr<std::string> Finish(uint32_t crc32c);

 private:
  const int64_t max_total_bytes_;
  int64_t total_bytes_ = -1;
  std::string bytes_;
  absl::Status damaged_;
};

}  // namespace mmapzero::rpc

#endif  // MMAPZERO_COMMON_RPC_CHUNKED_BYTES_H_
