// absl::Status <-> grpc::Status: the one place the codes are mapped (the
// numbers are the same by design), so handlers only translate.
#ifndef MMAPZERO_COMMON_RPC_GRPC_STATUS_H_
#define MMAPZERO_COMMON_RPC_GRPC_STATUS_H_

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace mmapzero::rpc {

grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace mmapzero::rpc

#endif  // MMAPZERO_COMMON_RPC_GRPC_STATUS_H_
