// ParameterService (proto/parameters.proto) as the learner serves it: the
// latest parameter snapshots of the jobs this learner trains, published by
// their training loops (learner_job.h) and streamed to actors and
// reanalysers in chunks of at most max_chunk_bytes (default 1 MiB), every
// chunk repeating version and total_bytes, the first with format and
// CRC32C (docs/protocols.md). The last `kept_versions` snapshots of a job
// stay fetchable, so a fetch of the version just announced by
// GetLatestVersion still works when a newer one was published meanwhile;
// older ones are NOT_FOUND ("fetch the latest"). A stream holds its
// snapshot by reference count, so publishing never waits for a fetch.
//
// Version 0 is the job's untrained network, published when training
// starts; a resumed job publishes its checkpoint's step at once.
// Thread-safe.
#ifndef MMAPZERO_LEARNER_PARAMETER_SERVICE_H_
#define MMAPZERO_LEARNER_PARAMETER_SERVICE_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/rpc/rpc_handler.h"
#include "proto/parameters.grpc.pb.h"

namespace mmapzero::learner {

struct ParameterServiceOptions {
  int default_chunk_bytes = 1 << 20;  // FetchParametersRequest 0
  int max_chunk_bytes = 16 << 20;     // larger requests are refused
  int kept_versions = 2;              // per job, >= 1
};

class ParameterServiceImpl final : public v1::ParameterService::Service {
 public:
  // `observer` (may be null) sees every finished call.
  explicit ParameterServiceImpl(ParameterServiceOptions options = {},
                                rpc::RpcObserver* observer = nullptr);

  // Makes `bytes` the job's latest snapshot (CRC32C computed here).
  void Publish(const std::string& job_id, int64_t version, std::string bytes,
               const std::string& format) ABSL_LOCKS_EXCLUDED(mu_);
  // Forgets the job (its lease is gone): NOT_FOUND from then on.
  void Remove(const std::string& job_id) ABSL_LOCKS_EXCLUDED(mu_);
  // The job's latest version; NotFound when it has none.
  absl::StatusOr<int64_t> LatestVersion(const std::string& job_id) const
      ABSL_LOCKS_EXCLUDED(mu_);

  grpc::Status GetLatestVersion(grpc::ServerContext* context,
                                const v1::GetLatestVersionRequest* request,
                                v1::ParameterVersion* response) override;
  grpc::Status FetchParameters(
      grpc::ServerContext* context, const v1::FetchParametersRequest* request,
      grpc::ServerWriter<v1::ParameterChunk>* writer) override;

 private:
  struct Snapshot {
    int64_t version = 0;
    std::string format;
    uint32_t crc32c = 0;
    std::shared_ptr<const std::string> bytes;
  };
  // The snapshot of `version` (0: the latest); NotFound naming the job or
  // the version.
  absl::StatusOr<Snapshot> Find(const std::string& job_id,
                                int64_t version) const ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status Stream(const grpc::ServerContext& context,
                      const v1::FetchParametersRequest& request,
                      grpc::ServerWriter<v1::ParameterChunk>* writer);

  const ParameterServiceOptions options_;
  rpc::RpcObserver* const observer_;
  mutable absl::Mutex mu_;
  // job id -> its snapshots, oldest first.
  absl::flat_hash_map<std::string, std::deque<Snapshot>> jobs_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace mmapzero::learner

#endif  // MMAPZERO_LEARNER_PARAMETER_SERVICE_H_
