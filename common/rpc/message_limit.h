// The largest gRPC message any mmapzero service or client sends or
// receives: assignments carry whole workloads, and replay batches and
// parameter snapshots run to tens of megabytes. Servers (grpc_server.h and
// the services' options) and clients (client_channel.h) use this one
// figure, so a message one side may send the other may read.
#ifndef MMAPZERO_COMMON_RPC_MESSAGE_LIMIT_H_
#define MMAPZERO_COMMON_RPC_MESSAGE_LIMIT_H_

namespace mmapzero::rpc {

inline constexpr int kMaxMessageBytes = 64 << 20;

}  // namespace mmapzero::rpc

#endif  // MMAPZERO_COMMON_RPC_MESSAGE_LIMIT_H_
