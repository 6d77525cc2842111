#include "replay/replay_tables.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/agent/trajectory_proto.h"
#include "common/base/plain_name.h"
#include "common/base/set_aside.h"
#include "common/base/status_macros.h"
#include "common/service/log_line.h"
#include "replay/table_checkpoint.h"

namespace mmapzero::replay {

using service::LogLine;
namespace {

absl::Status InRange(absl::string_view field, int64_t value, int64_t low,
                     int64_t high) {
  if (value >= low && value <= high) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": must be in ", low, "..", high, ", got ", value));
}

absl::Status TooLarge(absl::string_view what, size_t bytes, int64_t limit) {
  return absl::ResourceExhaustedError(
      absl::StrCat(what, ": the response would be ", bytes, " bytes, over the ",
                   limit, "-byte message limit; ask for less"));
}

}  // namespace

absl::Status CheckJobId(const std::string& job_id) {
  const bool safe = !job_id.empty() && job_id.size() <= 128 && job_id != "." &&
                    job_id != ".." && IsPlainName(job_id);
  if (safe) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("job_id: must be 1..128 characters of [A-Za-z0-9._-], got '",
                   job_id, "'"));
}

ReplayTables::ReplayTables(ReplayTablesOptions options)
    : options_(std::move(options)) {}

std::string ReplayTables::TablePath(const std::string& job_id) const {
  return (std::filesystem::path(options_.data_dir) / "replay" / job_id /
          kTableFileName)
      .string();
}

std::shared_ptr<ReplayTable> ReplayTables::NewTable(int64_t capacity) const {
  ReplayTableOptions table = options_.table;
  table.capacity = std::max<int64_t>(1, capacity);
  return std::make_shared<ReplayTable>(table);
}

namespace {

TableSnapshot WithUid(TableSnapshot snapshot, const std::string& uid) {
  snapshot.stats.set_job_uid(uid);
  return snapshot;
}

}  // namespace

void ReplayTables::SetAsideLocked(const std::string& job_id,
                                  const std::string& owner) {
  std::string moved;
  if (!options_.data_dir.empty()) {
    const std::string path = TablePath(job_id);
    moved = absl::StrCat(path, ".other-", owner);
    std::error_code ignored;
    std::filesystem::rename(path, moved, ignored);
    // The one before it is that job's too.
    std::filesystem::rename(PreviousTablePath(path), moved + ".old", ignored);
  }
  LogLine("warning", "table_set_aside",
          {{"job", job_id}, {"uid", owner}, {"moved_to", moved}});
}

absl::StatusOr<std::shared_ptr<ReplayTable>> ReplayTables::Table(
    const std::string& job_id, bool create) {
  RETURN_IF_ERROR(CheckJobId(job_id));
  if (std::shared_ptr<ReplayTable> held = Unpark(job_id)) return held;
  std::shared_ptr<ReplayTable> table;
  {
    absl::MutexLock lock(&mu_);
    auto it = tables_.find(job_id);
    if (it != tables_.end()) return it->second;
    if (!create) {
      return absl::NotFoundError(
          absl::StrCat("job_id: no replay table for job '", job_id, "'"));
    }
    int unassigned = 0;
    for (const auto& [id, held] : tables_)
      unassigned += !assigned_.contains(id);
    if (unassigned >= options_.max_unassigned_tables) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "job_id: job '", job_id, "' is not assigned to this replay server, ",
          "which already holds ", unassigned,
          " tables of unassigned jobs (the most it makes before an ",
          "assignment); retry once the coordinator has assigned the job"));
    }
    table = NewTable(options_.default_capacity);
    tables_[job_id] = table;
    last_assigned_[job_id] = absl::Now();
    LogLine("info", "table_created",
            {{"job", job_id},
             {"capacity", absl::StrCat(options_.default_capacity)},
             {"reason", "insert before assignment"}});
  }
  Rebalance();
  return table;
}

std::shared_ptr<ReplayTable> ReplayTables::InMemory(const std::string& job_id,
                                                    bool* parked) const {
  absl::MutexLock lock(&mu_);
  if (auto it = tables_.find(job_id); it != tables_.end()) return it->second;
  *parked = parked_.contains(job_id);
  return nullptr;
}

std::shared_ptr<ReplayTable> ReplayTables::Unpark(const std::string& job_id) {
  bool parked = false;
  if (auto held = InMemory(job_id, &parked); held || !parked) return held;
  // One load at a time, outside mu_: requests for tables in memory go on
  // while a file is read, and two requests for one parked job read it once.
  absl::MutexLock load_lock(&load_mu_);
  if (auto held = InMemory(job_id, &parked); held || !parked) return held;
  auto newest = LoadNewestGood(job_id);
  std::shared_ptr<ReplayTable> table =
      newest.ok() ? newest->first : NewTable(options_.default_capacity);
  {
    absl::MutexLock checkpoint_lock(&checkpoint_mu_);
    absl::MutexLock lock(&mu_);
    if (!parked_.erase(job_id)) return nullptr;  // retired while it loaded
    if (newest.ok()) {
      saved_[job_id] = {table, table->generation()};
      uids_[job_id] = newest->second;
    }
    tables_[job_id] = table;
  }
  const v1::ReplayStats stats = table->Stats();
  LogLine("info", "table_loaded",
          {{"job", job_id},
           {"trajectories", absl::StrCat(stats.trajectories())},
           {"positions", absl::StrCat(stats.positions())},
           {"bytes", absl::StrCat(stats.bytes())}});
  Rebalance();
  return table;
}

void ReplayTables::ParkUnassigned() {
  if (options_.data_dir.empty()) return;
  std::vector<std::string> parked;
  // Measured and freed once the locks are let go: both take a while for a
  // large table.
  std::vector<std::shared_ptr<ReplayTable>> freed;
  {
    absl::MutexLock checkpoint_lock(&checkpoint_mu_);
    absl::MutexLock lock(&mu_);
    for (const auto& [job_id, table] : tables_) {
      // Copies of a table are made only under mu_, so a count of one (this
      // map's) means no request holds it now or can until mu_ is released.
      if (assigned_.contains(job_id) || table.use_count() != 1) continue;
      const auto saved = saved_.find(job_id);
      const bool whole = saved != saved_.end() &&
                         saved->second.first.lock() == table &&
                         saved->second.second == table->generation();
      if (whole) parked.push_back(job_id);
    }
    for (const std::string& job_id : parked) {
      auto it = tables_.find(job_id);
      freed.push_back(std::move(it->second));
      tables_.erase(it);
      parked_.insert(job_id);
    }
  }
  for (size_t i = 0; i < parked.size(); ++i) {
    LogLine("info", "table_parked",
            {{"job", parked[i]},
             {"bytes_freed", absl::StrCat(freed[i]->Stats().bytes())}});
  }
  freed.clear();
  if (!parked.empty()) Rebalance();
}

std::vector<std::string> ReplayTables::HeldJobsLocked() const {
  std::vector<std::string> jobs;
  jobs.reserve(tables_.size() + parked_.size());
  for (const auto& [job_id, table] : tables_) jobs.push_back(job_id);
  jobs.insert(jobs.end(), parked_.begin(), parked_.end());
  return jobs;
}

int ReplayTables::parked_tables() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(parked_.size());
}

void ReplayTables::Rebalance() {
  if (options_.max_total_bytes <= 0) return;
  std::vector<std::shared_ptr<ReplayTable>> tables;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [job_id, table] : tables_) tables.push_back(table);
  }
  if (tables.empty()) return;
  int64_t share =
      options_.max_total_bytes / static_cast<int64_t>(tables.size());
  share = std::max<int64_t>(1, share);
  if (options_.table.max_bytes > 0) {
    share = std::min(share, options_.table.max_bytes);
  }
  for (const auto& table : tables) table->SetMaxBytes(share);
}

int ReplayTables::RetireUnassigned(absl::Time now) {
  if (options_.retention <= absl::ZeroDuration()) return 0;
  int retired = 0;
  {
    absl::MutexLock checkpoint_lock(&checkpoint_mu_);
    absl::MutexLock lock(&mu_);
    std::vector<std::string> expired;
    for (const std::string& job_id : HeldJobsLocked()) {
      const auto last = last_assigned_.find(job_id);
      const bool keep = assigned_.contains(job_id) ||
                        (last != last_assigned_.end() &&
                         now - last->second < options_.retention);
      if (!keep) expired.push_back(job_id);
    }
    for (const std::string& job_id : expired) {
      RetireLocked(job_id,
                   {{"retention", absl::FormatDuration(options_.retention)}});
      ++retired;
    }
  }
  if (retired > 0) Rebalance();
  return retired;
}

std::vector<v1::StoredJob> ReplayTables::UnassignedJobs() const {
  absl::MutexLock lock(&mu_);
  std::vector<v1::StoredJob> jobs;
  for (const std::string& job_id : HeldJobsLocked()) {
    if (assigned_.contains(job_id)) continue;
    v1::StoredJob& job = jobs.emplace_back();
    job.set_job_id(job_id);
    const auto uid = uids_.find(job_id);
    if (uid != uids_.end()) job.set_job_uid(uid->second);
  }
  std::sort(jobs.begin(), jobs.end(),
            [](const v1::StoredJob& a, const v1::StoredJob& b) {
              return a.job_id() < b.job_id();
            });
  return jobs;
}

bool ReplayTables::RetireDeleted(const v1::StoredJob& job) {
  {
    absl::MutexLock checkpoint_lock(&checkpoint_mu_);
    absl::MutexLock lock(&mu_);
    const auto uid = uids_.find(job.job_id());
    const std::string held = uid == uids_.end() ? "" : uid->second;
    const bool stored =
        tables_.contains(job.job_id()) || parked_.contains(job.job_id());
    if (!stored || assigned_.contains(job.job_id()) || held != job.job_uid()) {
      return false;
    }
    RetireLocked(job.job_id(), {{"reason", "job deleted"}});
  }
  Rebalance();
  return true;
}

void ReplayTables::RetireLocked(const std::string& job_id,
                                service::LogFields why) {
  tables_.erase(job_id);
  parked_.erase(job_id);
  uids_.erase(job_id);
  last_assigned_.erase(job_id);
  saved_.erase(job_id);
  fallbacks_.erase(job_id);
  if (!options_.data_dir.empty()) {
    std::error_code error;
    std::filesystem::remove_all(
        std::filesystem::path(TablePath(job_id)).parent_path(), error);
    if (error) {
      LogLine("error", "table_retire_failed",
              {{"job", job_id}, {"message", error.message()}});
    }
  }
  why.insert(why.begin(), {"job", job_id});
  LogLine("info", "table_retired", why);
}

absl::StatusOr<std::pair<std::shared_ptr<ReplayTable>, std::string>>
ReplayTables::LoadNewestGood(const std::string& job_id) {
  const std::string path = TablePath(job_id);
  std::string damage;  // what was set aside, for the job's status
  auto note_fallback = [&](absl::string_view then) {
    if (damage.empty()) return;
    absl::MutexLock lock(&mu_);
    fallbacks_[job_id] = absl::StrCat(damage, "; ", then);
  };
  for (const std::string& file : {path, PreviousTablePath(path)}) {
    absl::StatusOr<TableSnapshot> snapshot = LoadTable(file);
    if (absl::IsNotFound(snapshot.status())) continue;
    absl::Status status = snapshot.status();
    if (status.ok()) {
      const std::string uid = snapshot->stats.job_uid();
      std::shared_ptr<ReplayTable> table = NewTable(std::max<int64_t>(
          snapshot->stats.capacity(), snapshot->entries.size()));
      status = table->Restore(*std::move(snapshot));
      if (status.ok()) {
        if (file != path) {
          // The next checkpoint keeps this one as table.mzr.old again.
          std::error_code error;
          std::filesystem::rename(file, path, error);
          LogLine("warning", "checkpoint_fallback",
                  {{"job", job_id}, {"path", file}});
          note_fallback(absl::StrCat("loaded the previous one, ", file));
        }
        return std::make_pair(std::move(table), uid);
      }
    }
    ++damaged_checkpoints_;
    const absl::StatusOr<std::string> aside = SetAsideDamaged(file);
    LogLine("error", "checkpoint_damaged",
            {{"job", job_id},
             {"path", file},
             {"moved_to", aside.ok() ? *aside : aside.status().ToString()},
             {"message", std::string(status.message())}});
    if (damage.empty()) {
      damage = absl::StrCat("replay table checkpoint ", file, " damaged (",
                            status.message(), "), set aside");
    }
  }
  note_fallback("no good copy: the table starts empty");
  return absl::NotFoundError(
      absl::StrCat("no good checkpoint of job '", job_id, "'"));
}

std::string ReplayTables::CheckpointFallback(const std::string& job_id) const {
  absl::MutexLock lock(&mu_);
  const auto found = fallbacks_.find(job_id);
  return found == fallbacks_.end() ? "" : found->second;
}

absl::StatusOr<int> ReplayTables::LoadAll() {
  if (options_.data_dir.empty()) return 0;
  const std::filesystem::path root =
      std::filesystem::path(options_.data_dir) / "replay";
  std::error_code error;
  if (!std::filesystem::exists(root, error)) return 0;
  int found = 0;
  for (const auto& dir : std::filesystem::directory_iterator(root, error)) {
    const std::string job_id = dir.path().filename().string();
    std::error_code ignored;
    if (!dir.is_directory(ignored) || !CheckJobId(job_id).ok()) continue;
    // The start of the newest file names the job's uid; the whole file is
    // read and checked when the table is needed (Unpark).
    const std::string path = TablePath(job_id);
    absl::StatusOr<v1::ReplayStats> stats = ReadTableStats(path);
    if (absl::IsNotFound(stats.status())) {
      stats = ReadTableStats(PreviousTablePath(path));
      if (absl::IsNotFound(stats.status())) continue;  // no checkpoint
    }
    {
      absl::MutexLock lock(&mu_);
      if (tables_.contains(job_id)) continue;  // a request came first
      parked_.insert(job_id);
      // A start too damaged to name the uid: unknown until the load.
      uids_[job_id] = stats.ok() ? stats->job_uid() : "";
      last_assigned_[job_id] = absl::Now();  // kept a retention from here
    }
    ++found;
    LogLine("info", "table_found",
            {{"job", job_id},
             {"trajectories",
              stats.ok() ? absl::StrCat(stats->trajectories()) : "unknown"}});
  }
  if (error) {
    return absl::UnavailableError(absl::StrCat(
        "replay: cannot list ", root.string(), ": ", error.message()));
  }
  return found;
}

absl::StatusOr<v1::InsertTrajectoriesResponse> ReplayTables::Insert(
    const v1::InsertTrajectoriesRequest& request) {
  RETURN_IF_ERROR(CheckJobId(request.job_id()));
  if (request.trajectories_size() == 0) {
    return absl::InvalidArgumentError("trajectories: must not be empty");
  }
  std::vector<agent::Trajectory> trajectories;
  trajectories.reserve(request.trajectories_size());
  for (int i = 0; i < request.trajectories_size(); ++i) {
    const v1::Trajectory& proto = request.trajectories(i);
    if (proto.trajectory_id() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "trajectories[", i, "].trajectory_id: must be 0 on insert (the ",
          "server gives ids), got ", proto.trajectory_id()));
    }
    ASSIGN_OR_RETURN(agent::Trajectory trajectory,
                     agent::TrajectoryFromProto(
                         proto, absl::StrCat("trajectories[", i, "]")));
    trajectories.push_back(std::move(trajectory));
  }
  ASSIGN_OR_RETURN(std::shared_ptr<ReplayTable> table,
                   Table(request.job_id(), /*create=*/true));
  ASSIGN_OR_RETURN(const std::vector<uint64_t> ids,
                   table->Insert(std::move(trajectories)));
  v1::InsertTrajectoriesResponse response;
  response.mutable_trajectory_ids()->Assign(ids.begin(), ids.end());
  response.set_table_size(table->Stats().trajectories());
  return response;
}

absl::StatusOr<v1::SampleBatchResponse> ReplayTables::SampleBatch(
    const v1::SampleBatchRequest& request, absl::Time deadline) {
  RETURN_IF_ERROR(CheckJobId(request.job_id()));
  RETURN_IF_ERROR(InRange("batch_size", request.batch_size(), 1, 65536));
  RETURN_IF_ERROR(InRange("unroll_steps", request.unroll_steps(), 0, 64));
  RETURN_IF_ERROR(InRange("td_steps", request.td_steps(), 0, 100000));
  if (!(request.discount() >= 0 && request.discount() <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("discount: must be in [0, 1], got ", request.discount()));
  }
  ASSIGN_OR_RETURN(std::shared_ptr<ReplayTable> table,
                   Table(request.job_id(), /*create=*/false));
  // Sized before it runs: a batch that cannot fit a message allocates
  // nothing and spends none of the rate limiter's budget.
  const int64_t at_least = request.batch_size() * table->ObservationBytes();
  if (at_least > options_.max_message_bytes) {
    return TooLarge(
        absl::StrCat("SampleBatch with batch_size ", request.batch_size()),
        at_least, options_.max_message_bytes);
  }
  const absl::Time wait_until =
      std::min(deadline, absl::Now() + options_.max_rate_wait);
  ASSIGN_OR_RETURN(
      const std::vector<SampledWindow> windows,
      table->SampleWindows(request.batch_size(), request.seed(), wait_until));
  const int length = request.unroll_steps() + request.td_steps() + 1;
  v1::SampleBatchResponse response;
  response.mutable_windows()->Reserve(windows.size());
  for (const SampledWindow& sampled : windows) {
    v1::TrajectoryWindow* window = response.add_windows();
    const agent::Trajectory& trajectory = *sampled.stored.trajectory;
    window->set_trajectory_id(sampled.stored.id);
    window->set_start_step(sampled.start);
    window->set_trajectory_length(trajectory.steps.size());
    agent::WindowToProto(trajectory, sampled.start, length,
                         window->mutable_window());
    window->mutable_window()->set_trajectory_id(sampled.stored.id);
    window->mutable_window()->set_targets_version(
        sampled.stored.targets_version);
  }
  const size_t bytes = response.ByteSizeLong();
  if (static_cast<int64_t>(bytes) > options_.max_message_bytes) {
    return TooLarge(
        absl::StrCat("SampleBatch with batch_size ", request.batch_size()),
        bytes, options_.max_message_bytes);
  }
  return response;
}

absl::StatusOr<v1::SampleForReanalyseResponse> ReplayTables::SampleForReanalyse(
    const v1::SampleForReanalyseRequest& request) {
  RETURN_IF_ERROR(CheckJobId(request.job_id()));
  RETURN_IF_ERROR(InRange("count", request.count(), 1, 4096));
  ASSIGN_OR_RETURN(std::shared_ptr<ReplayTable> table,
                   Table(request.job_id(), /*create=*/false));
  v1::SampleForReanalyseResponse response;
  size_t bytes = 0;
  for (const StoredTrajectory& stored :
       table->SampleTrajectories(request.count(), request.seed())) {
    v1::Trajectory proto;
    agent::TrajectoryToProto(*stored.trajectory, &proto);
    proto.set_trajectory_id(stored.id);
    proto.set_targets_version(stored.targets_version);
    const size_t size = proto.ByteSizeLong() + 8;  // + field tag and length
    if (static_cast<int64_t>(bytes + size) > options_.max_message_bytes) {
      if (response.trajectories_size() == 0) {
        return TooLarge("SampleForReanalyse of one trajectory", size,
                        options_.max_message_bytes);
      }
      break;  // fewer than asked: the rest would not fit
    }
    bytes += size;
    *response.add_trajectories() = std::move(proto);
  }
  return response;
}

absl::StatusOr<v1::UpdateTargetsResponse> ReplayTables::UpdateTargets(
    const v1::UpdateTargetsRequest& request) {
  ASSIGN_OR_RETURN(std::shared_ptr<ReplayTable> table,
                   Table(request.job_id(), /*create=*/false));
  ASSIGN_OR_RETURN(const UpdateResult result, table->UpdateTargets(request));
  v1::UpdateTargetsResponse response;
  response.set_updated(result.updated);
  response.set_gone(result.gone);
  return response;
}

absl::StatusOr<v1::ReplayStats> ReplayTables::GetStats(
    const v1::GetStatsRequest& request) {
  ASSIGN_OR_RETURN(std::shared_ptr<ReplayTable> table,
                   Table(request.job_id(), /*create=*/false));
  v1::ReplayStats stats = table->Stats();
  stats.set_job_id(request.job_id());
  absl::MutexLock lock(&mu_);
  if (auto uid = uids_.find(request.job_id()); uid != uids_.end()) {
    stats.set_job_uid(uid->second);
  }
  return stats;
}

void ReplayTables::Assign(const std::vector<v1::Assignment>& assignments,
                          absl::Time now) {
  {
    absl::MutexLock lock(&mu_);
    assigned_.clear();
    for (const v1::Assignment& assignment : assignments) {
      if (assignment.role() != v1::WORKER_ROLE_REPLAY) continue;
      assigned_.insert(assignment.job_id());
      last_assigned_[assignment.job_id()] = now;
    }
  }
  bool created = false;
  for (const v1::Assignment& assignment : assignments) {
    if (assignment.role() != v1::WORKER_ROLE_REPLAY ||
        !CheckJobId(assignment.job_id()).ok()) {
      continue;
    }
    const MuZeroConfig& config = assignment.config();
    const int64_t capacity = config.training().replay_size() > 0
                                 ? config.training().replay_size()
                                 : options_.default_capacity;
    const int td_steps = config.training().td_steps() > 0
                             ? config.training().td_steps()
                             : options_.table.td_steps;
    const double discount = config.search().discount() > 0
                                ? config.search().discount()
                                : options_.table.discount;
    Unpark(assignment.job_id());  // a resumed job's games come back
    std::shared_ptr<ReplayTable> table;
    {
      absl::MutexLock lock(&mu_);
      std::shared_ptr<ReplayTable>& slot = tables_[assignment.job_id()];
      std::string& owner = uids_[assignment.job_id()];
      const std::string& uid = assignment.job_uid();
      if (slot != nullptr && !uid.empty() && !owner.empty() && owner != uid) {
        SetAsideLocked(assignment.job_id(), owner);
        slot = nullptr;
      }
      if (!uid.empty()) owner = uid;
      if (slot == nullptr) {
        slot = NewTable(capacity);
        created = true;
        LogLine("info", "table_created",
                {{"job", assignment.job_id()},
                 {"capacity", absl::StrCat(capacity)},
                 {"reason", "assignment"}});
      }
      table = slot;
    }
    table->SetCapacity(capacity);
    table->SetValueTarget(td_steps, discount);
  }
  if (created) Rebalance();
}

absl::Status ReplayTables::CheckpointAll() {
  if (options_.data_dir.empty()) return absl::OkStatus();
  absl::Status first = SaveChanged();
  ParkUnassigned();  // after SaveChanged let go of its copies of the tables
  return first;
}

absl::Status ReplayTables::SaveChanged() {
  absl::MutexLock checkpoint_lock(&checkpoint_mu_);
  std::vector<std::pair<std::string, std::shared_ptr<ReplayTable>>> tables;
  absl::flat_hash_map<std::string, std::string> uids;
  {
    absl::MutexLock lock(&mu_);
    tables.assign(tables_.begin(), tables_.end());
    uids = uids_;
  }
  absl::Status first;
  for (const auto& [job_id, table] : tables) {
    const int64_t generation = table->generation();
    auto saved = saved_.find(job_id);
    if (saved != saved_.end() && saved->second.first.lock() == table &&
        saved->second.second == generation) {
      continue;
    }
    const std::string path = TablePath(job_id);
    std::error_code error;
    std::filesystem::create_directories(
        std::filesystem::path(path).parent_path(), error);
    absl::Status status =
        error
            ? absl::UnavailableError(
                  absl::StrCat("replay: cannot create the folder of ", path,
                               ": ", error.message()))
            : SaveTable(path, job_id, WithUid(table->Snapshot(), uids[job_id]));
    if (status.ok()) {
      saved_[job_id] = {table, generation};
    } else {
      LogLine("error", "checkpoint_failed",
              {{"job", job_id}, {"message", std::string(status.message())}});
      first.Update(status);
    }
  }
  return first;
}

std::vector<JobReplayStats> ReplayTables::AllStats() const {
  std::vector<std::pair<std::string, std::shared_ptr<ReplayTable>>> tables;
  {
    absl::MutexLock lock(&mu_);
    tables.assign(tables_.begin(), tables_.end());
  }
  std::vector<JobReplayStats> out;
  for (const auto& [job_id, table] : tables) {
    JobReplayStats job;
    job.stats = table->Stats();
    job.stats.set_job_id(job_id);
    job.positions_inserted = table->positions_inserted();
    out.push_back(std::move(job));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.stats.job_id() < b.stats.job_id();
  });
  return out;
}

}  // namespace mmapzero::replay
