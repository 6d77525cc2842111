#include "coordinator/network_chunks.h"

namespace mmapzero::coordinator {

absl::Status WriteNetworkChunks(const grpc::ServerContext& context,
                                const NetworkBytes& network,
                                int32_t max_chunk_bytes,
                                grpc::ServerWriter<v1::NetworkChunk>* writer) {
  ASSIGN_OR_RETURN(const int64_t chunk_bytes,
                   rpc::ChunkBytesOf(max_chunk_bytes, kDefaultNetworkChunkBytes,
                                     kMaxNetworkChunkBytes));
  return rpc::WriteChunks(
      context, network.bytes, chunk_bytes, writer,
      [&network](int64_t offset, int64_t total, std::string_view piece,
                 v1::NetworkChunk* chunk) {
        chunk->set_offset(offset);
        chunk->set_total_bytes(total);
        chunk->set_data(piece.data(), piece.size());
        chunk->set_crc32c(network.crc32c);
      });
}

}  // namespace mmapzero::coordinator
