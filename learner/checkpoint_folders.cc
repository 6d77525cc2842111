#include "learner/checkpoint_folders.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <system_error>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace mmapzero::learner {
namespace {

namespace fs = std::filesystem;

bool AllOf(absl::string_view text, int (*is_class)(int)) {
  return std::all_of(text.begin(), text.end(),
                     [is_class](char c) { return is_class(c) != 0; });
}

bool IsJobId(absl::string_view id) {
  constexpr absl::string_view kPrefix = "job-";
  return absl::StartsWith(id, kPrefix) && id.size() > kPrefix.size() &&
         id.size() <= 24 && AllOf(id.substr(kPrefix.size()), isdigit);
}

bool IsJobUid(absl::string_view uid) {
  return uid.size() <= 64 && AllOf(uid, isxdigit);
}

// The job a folder entry belongs to: "<job id>[-<uid>][.<suffix>]".
std::optional<v1::StoredJob> JobOfEntry(absl::string_view name) {
  const absl::string_view base = name.substr(0, name.find('.'));
  const size_t uid_dash = base.find('-', 4);  // after "job-"
  v1::StoredJob job;
  job.set_job_id(std::string(base.substr(0, uid_dash)));
  if (uid_dash != absl::string_view::npos) {
    job.set_job_uid(std::string(base.substr(uid_dash + 1)));
    if (job.job_uid().empty()) return std::nullopt;
  }
  if (!IsJobId(job.job_id()) || !IsJobUid(job.job_uid())) return std::nullopt;
  return job;
}

int64_t BytesUnder(const fs::path& path) {
  std::error_code error;
  if (!fs::is_directory(path, error)) {
    const auto size = fs::file_size(path, error);
    return error ? 0 : static_cast<int64_t>(size);
  }
  int64_t bytes = 0;
  for (fs::recursive_directory_iterator it(path, error), end;
       !error && it != end; it.increment(error)) {
    if (it->is_regular_file(error)) {
      const auto size = it->file_size(error);
      if (!error) bytes += static_cast<int64_t>(size);
    }
  }
  return bytes;
}

}  // namespace

std::string JobCheckpointDir(const std::string& data_dir,
                             const v1::Assignment& assignment) {
  std::string dir = absl::StrCat(data_dir, "/learner/", assignment.job_id());
  if (!assignment.job_uid().empty()) {
    absl::StrAppend(&dir, "-", assignment.job_uid());
  }
  return dir;
}

std::vector<v1::StoredJob> ListCheckpointJobs(const std::string& data_dir) {
  std::set<std::pair<std::string, std::string>> jobs;
  std::error_code error;
  for (fs::directory_iterator it(fs::path(data_dir) / "learner", error), end;
       !error && it != end; it.increment(error)) {
    const std::optional<v1::StoredJob> job =
        JobOfEntry(it->path().filename().string());
    if (job.has_value()) jobs.emplace(job->job_id(), job->job_uid());
  }
  std::vector<v1::StoredJob> listed;
  for (const auto& [id, uid] : jobs) {
    v1::StoredJob& job = listed.emplace_back();
    job.set_job_id(id);
    job.set_job_uid(uid);
  }
  return listed;
}

absl::StatusOr<int64_t> RemoveCheckpointFolders(const std::string& data_dir,
                                                const v1::StoredJob& job) {
  if (!IsJobId(job.job_id()) || !IsJobUid(job.job_uid())) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a job's checkpoint folder: job_id '", job.job_id(),
                     "', job_uid '", job.job_uid(), "'"));
  }
  v1::Assignment assignment;
  assignment.set_job_id(job.job_id());
  assignment.set_job_uid(job.job_uid());
  const fs::path dir = JobCheckpointDir(data_dir, assignment);
  const std::string base = dir.filename().string();
  int64_t freed = 0;
  std::error_code error;
  std::vector<fs::path> entries;
  for (fs::directory_iterator it(dir.parent_path(), error), end;
       !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name == base || absl::StartsWith(name, base + ".")) {
      entries.push_back(it->path());
    }
  }
  for (const fs::path& entry : entries) {
    const int64_t bytes = BytesUnder(entry);
    fs::remove_all(entry, error);
    if (error) {
      return absl::InternalError(
          absl::StrCat(entry.string(), ": cannot remove: ", error.message()));
    }
    freed += bytes;
  }
  return freed;
}

}  // namespace mmapzero::learner
