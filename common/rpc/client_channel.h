// The one way the project's clients open a gRPC channel: to the
// coordinator, replay, a parameter server or a health endpoint. Every
// channel accepts and sends messages up to kMaxMessageBytes
// (message_limit.h), the servers' own limit; gRPC's 4 MiB receive default
// once left a worker unable to read the assignment of an 80,000-buffer
// job, which then sat RUNNING at learner step 0.
#ifndef MMAPZERO_COMMON_RPC_CLIENT_CHANNEL_H_
#define MMAPZERO_COMMON_RPC_CLIENT_CHANNEL_H_

#include <memory>
#include <string>

#include "common/rpc/message_limit.h"
#include "grpcpp/channel.h"

namespace mmapzero::rpc {

// A channel to `address` ("host:port") with the message limits above.
std::shared_ptr<grpc::Channel> MakeClientChannel(const std::string& address);

}  // namespace mmapzero::rpc

#endif  // MMAPZERO_COMMON_RPC_CLIENT_CHANNEL_H_
