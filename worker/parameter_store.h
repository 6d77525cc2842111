// The latest parameter snapshots of the jobs a learner trains, as their
// training loops publish them (learner/learner_job.h) and the learner's
// ParameterService serves them (learner/parameter_service.h), kept apart
// from that handler so the store has no gRPC in it and is tested alone.
//
// The last `kept_versions` snapshots of a job stay fetchable, so a fetch of
// the version just announced as the latest still works when a newer one
// was published meanwhile; older ones are NotFound ("fetch the latest").
// A snapshot's bytes are shared by reference count, so publishing never
// waits for a stream that is still sending an older one.
//
// Thread-safety: thread-safe.
#ifndef MMAPZERO_WORKER_PARAMETER_STORE_H_
#define MMAPZERO_WORKER_PARAMETER_STORE_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace mmapzero::worker {

struct ParameterSnapshot {
  int64_t version = 0;
  std::string format;   // e.g. model::kNetworkParametersFormat
  uint32_t crc32c = 0;  // of *bytes
  std::shared_ptr<const std::string> bytes;
};

class ParameterStore {
 public:
  explicit ParameterStore(int kept_versions = 2);  // at least 1 is kept

  // Makes `bytes` the job's latest snapshot (CRC32C computed here). A
  // resumed job may publish a version again: the newest bytes win, and
  // any kept version at or above it goes.
  void Publish(const std::string& job_id, int64_t version, std::string bytes,
               const std::string& format) ABSL_LOCKS_EXCLUDED(mu_);
  // Forgets the job (its lease is gone): NotFound from then on.
  void Remove(const std::string& job_id) ABSL_LOCKS_EXCLUDED(mu_);

  // The snapshot of `version` (0: the latest); NotFound naming the job or
  // the version.
  absl::StatusOr<ParameterSnapshot> Find(const std::string& job_id,
                                         int64_t version) const
      ABSL_LOCKS_EXCLUDED(mu_);
  // The job's latest version; NotFound when it has none.
  absl::StatusOr<int64_t> LatestVersion(const std::string& job_id) const
      ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const int kept_versions_;
  mutable absl::Mutex mu_;
  // job id -> its snapshots, oldest first.
  absl::flat_hash_map<std::string, std::deque<ParameterSnapshot>> jobs_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace mmapzero::worker

#endif  // MMAPZERO_WORKER_PARAMETER_STORE_H_
