#include "worker/parameter_store.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/rpc/parameter_client.h"

namespace mmapzero::worker {

ParameterStore::ParameterStore(int kept_versions)
    : kept_versions_(std::max(1, kept_versions)) {}

void ParameterStore::Publish(const std::string& job_id, int64_t version,
                             std::string bytes, const std::string& format) {
  ParameterSnapshot snapshot;
  snapshot.version = version;
  snapshot.format = format;
  snapshot.crc32c = rpc::Crc32c(bytes);
  snapshot.bytes = std::make_shared<const std::string>(std::move(bytes));
  absl::MutexLock lock(&mu_);
  std::deque<ParameterSnapshot>& snapshots = jobs_[job_id];
  while (!snapshots.empty() && snapshots.back().version >= version) {
    snapshots.pop_back();
  }
  snapshots.push_back(std::move(snapshot));
  while (static_cast<int>(snapshots.size()) > kept_versions_) {
    snapshots.pop_front();
  }
}

void ParameterStore::Remove(const std::string& job_id) {
  absl::MutexLock lock(&mu_);
  jobs_.erase(job_id);
}

absl::StatusOr<ParameterSnapshot> ParameterStore::Find(
    const std::string& job_id, int64_t version) const {
  absl::MutexLock lock(&mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end() || it->second.empty()) {
    return absl::NotFoundError(
        absl::StrCat("job_id: this learner does not train '", job_id, "'"));
  }
  if (version == 0) return it->second.back();
  for (const ParameterSnapshot& snapshot : it->second) {
    if (snapshot.version == version) return snapshot;
  }
  return absl::NotFoundError(absl::StrCat(
      "version: ", version, " of job '", job_id, "' is no longer kept (latest ",
      it->second.back().version, "): fetch the latest"));
}

absl::StatusOr<int64_t> ParameterStore::LatestVersion(
    const std::string& job_id) const {
  absl::StatusOr<ParameterSnapshot> snapshot = Find(job_id, 0);
  if (!snapshot.ok()) return snapshot.status();
  return snapshot->version;
}

}  // namespace mmapzero::worker
