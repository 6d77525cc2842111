// The one way the project's clients open a gRPC channel: to the
// coordinator, replay, a parameter server or a health endpoint. Every
// channel accepts and sends messages up to kMaxMessageBytes
// (message_limit.h), the servers' own limit; gRPC's 4 MiB receive default
// once left a worker unable to read the assignment of an 80,000-buffer
// job, which then sat RUNNING at learner step 0. Channels are secured as
// the process's transport security says (transport_security.h): TLS with
// this process's certificate, and its bearer token on every call.
#ifndef MMAPZERO_COMMON_RPC_CLIENT_CHANNEL_H_
#define MMAPZERO_COMMON_RPC_CLIENT_CHANNEL_H_

#include <memory>
#include <string>

#include "common/rpc/message_limit.h"
#include "common/security/transport_security.h"
#include "grpcpp/channel.h"

namespace mmapzero::rpc {

// A channel to `address` ("host:port") with the message limits above,
// under the process's transport security.
std::shared_ptr<grpc::Channel> MakeClientChannel(const std::string& address);

// The same under `security` (a test speaking as another identity).
std::shared_ptr<grpc::Channel> MakeClientChannel(
    const std::string& address, const security::TransportSecurity& security);

}  // namespace mmapzero::rpc

#endif  // MMAPZERO_COMMON_RPC_CLIENT_CHANNEL_H_
