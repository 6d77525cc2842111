// ParameterService (proto/parameters.proto) as the learner serves it: the
// gRPC handler over a ParameterStore (worker/parameter_store.h), which
// holds the latest parameter snapshots of the jobs this learner trains as
// their training loops (learner_job.h) publish them. Snapshots stream to
// actors and reanalysers in chunks of at most max_chunk_bytes (default
// 1 MiB), every chunk repeating version and total_bytes, the first with
// format and CRC32C (docs/protocols.md); a version the store no longer
// keeps is NOT_FOUND ("fetch the latest"). A stream holds its snapshot by
// reference count, so publishing never waits for a fetch.
//
// Version 0 is the job's untrained network, published when training
// starts; a resumed job publishes its checkpoint's step at once.
// Thread-safe.
#ifndef MMAPZERO_LEARNER_PARAMETER_SERVICE_H_
#define MMAPZERO_LEARNER_PARAMETER_SERVICE_H_

#include "absl/status/status.h"
#include "common/rpc/rpc_handler.h"
#include "proto/parameters.grpc.pb.h"
#include "worker/parameter_store.h"

namespace mmapzero::learner {

struct ParameterServiceOptions {
  int default_chunk_bytes = 1 << 20;  // FetchParametersRequest 0
  int max_chunk_bytes = 16 << 20;     // larger requests are refused
};

class ParameterServiceImpl final : public v1::ParameterService::Service {
 public:
  // Serves `store` (not owned; outlives this). `observer` (may be null)
  // sees every finished call.
  explicit ParameterServiceImpl(const worker::ParameterStore* store,
                                ParameterServiceOptions options = {},
                                rpc::RpcObserver* observer = nullptr);

  grpc::Status GetLatestVersion(grpc::ServerContext* context,
                                const v1::GetLatestVersionRequest* request,
                                v1::ParameterVersion* response) override;
  grpc::Status FetchParameters(
      grpc::ServerContext* context, const v1::FetchParametersRequest* request,
      grpc::ServerWriter<v1::ParameterChunk>* writer) override;

 private:
  absl::Status Stream(const grpc::ServerContext& context,
                      const v1::FetchParametersRequest& request,
                      grpc::ServerWriter<v1::ParameterChunk>* writer);

  const worker::ParameterStore* const store_;
  const ParameterServiceOptions options_;
  rpc::RpcObserver* const observer_;
};

}  // namespace mmapzero::learner

#endif  // MMAPZERO_LEARNER_PARAMETER_SERVICE_H_
