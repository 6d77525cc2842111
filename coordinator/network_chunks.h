// Network files over gRPC in pieces (common/rpc/chunked_bytes.h), both
// ways: the registry's ExportNetwork and the learner's FetchJobNetwork
// stream NetworkChunk messages out; ImportNetwork and ReportJobNetwork
// read messages that each carry one in. Every chunk repeats the total and
// the CRC32C of the whole, which the reader checks at the end.
#ifndef MMAPZERO_COORDINATOR_NETWORK_CHUNKS_H_
#define MMAPZERO_COORDINATOR_NETWORK_CHUNKS_H_

#include <grpcpp/server_context.h>
#include <grpcpp/support/sync_stream.h>

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/rpc/chunked_bytes.h"
#include "common/rpc/network_stream.h"
#include "coordinator/coordinator.h"
#include "proto/network.pb.h"

namespace mmapzero::coordinator {

inline constexpr int kDefaultNetworkChunkBytes = 1 << 20;
inline constexpr int kMaxNetworkChunkBytes = 16 << 20;

// Writes `network` in chunks of the size the request asked for
// (`max_chunk_bytes`, 0: 1 MiB; InvalidArgument outside 0 to 16 MiB).
absl::Status WriteNetworkChunks(const grpc::ServerContext& context,
                                const NetworkBytes& network,
                                int32_t max_chunk_bytes,
                                grpc::ServerWriter<v1::NetworkChunk>* writer);

// A server reader that asks `admit` about the first message before it
// hands it on, and ends the stream there when `admit` refuses it.
template <typename Message, typename Admit>
class AdmittingReader {
 public:
  AdmittingReader(grpc::ServerReader<Message>* reader, Admit& admit)
      : reader_(reader), admit_(admit) {}

  bool Read(Message* message) {
    if (!refused_.ok() || !reader_->Read(message)) return false;
    if (!asked_) {
      asked_ = true;
      refused_ = admit_(*message);
    }
    return refused_.ok();
  }
  const absl::Status& refused() const { return refused_; }

 private:
  grpc::ServerReader<Message>* reader_;
  Admit& admit_;
  bool asked_ = false;
  absl::Status refused_;
};

// Reads the whole client stream: the first message into `*first`, the
// chunks (each message's `chunk`) put together; "" when no message
// carried one. `admit(first)` is asked before anything more is read: its
// error is returned at once, so a caller refused (a worker that cannot
// prove its id) makes the coordinator hold no more than one message of its
// upload. InvalidArgument naming the chunk when they do not fit together,
// pass Coordinator::kMaxNetworkBytes or miss the CRC32C.
template <typename Message, typename Admit>
absl::StatusOr<std::string> ReadNetworkChunks(
    grpc::ServerReader<Message>* reader, Message* first, Admit&& admit) {
  AdmittingReader<Message, Admit> admitting(reader, admit);
  bool any = false;
  absl::StatusOr<std::string> bytes = rpc::AssembleNetworkChunks(
      admitting, Coordinator::kMaxNetworkBytes,
      [](const Message& message) {
        return message.has_chunk() ? &message.chunk() : nullptr;
      },
      first, &any);
  if (!admitting.refused().ok()) return admitting.refused();
  if (!any) return absl::InvalidArgumentError("the stream carried no message");
  if (!bytes.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("chunk: ", bytes.status().message()));
  }
  return bytes;
}

// The same with every first message admitted.
template <typename Message>
absl::StatusOr<std::string> ReadNetworkChunks(
    grpc::ServerReader<Message>* reader, Message* first) {
  return ReadNetworkChunks(reader, first,
                           [](const Message&) { return absl::OkStatus(); });
}

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_NETWORK_CHUNKS_H_
