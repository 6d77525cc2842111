// Client side of ParameterService (proto/parameters.proto): the latest
// parameter snapshot of a job's learner, fetched as a stream of chunks and
// checked (sizes, offsets, CRC32C) before it is returned. The bytes are
// opaque here (the "torch-archive-v1" format is common/model's business),
// so actors and reanalysers fetch without this library needing LibTorch.
#ifndef MMAPZERO_COMMON_RPC_PARAMETER_CLIENT_H_
#define MMAPZERO_COMMON_RPC_PARAMETER_CLIENT_H_

#include <grpcpp/channel.h>

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/base/crc32c.h"
#include "proto/parameters.grpc.pb.h"

namespace mmapzero::rpc {

struct ParameterSnapshot {
  int64_t version = 0;  // learner step
  std::string format;
  std::string bytes;
};

class ParameterClient {
 public:
  ParameterClient(std::shared_ptr<grpc::Channel> channel,
                  absl::Duration deadline = absl::Seconds(30));

  // The learner's latest version for `job_id` (0: none published yet).
  absl::StatusOr<int64_t> LatestVersion(const std::string& job_id);
  // The snapshot of `version` (0: the latest). DataLoss when the chunks do
  // not add up or the CRC32C differs; the server's status otherwise.
  absl::StatusOr<ParameterSnapshot> Fetch(const std::string& job_id,
                                          int64_t version = 0);

 private:
  std::unique_ptr<v1::ParameterService::Stub> stub_;
  absl::Duration deadline_;
};

// CRC32C of the bytes, as ParameterVersion.crc32c carries it.
using ::mmapzero::Crc32c;

}  // namespace mmapzero::rpc

#endif  // MMAPZERO_COMMON_RPC_PARAMETER_CLIENT_H_
