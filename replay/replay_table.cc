#include "replay/replay_table.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/agent/replay_buffer.h"
#include "common/agent/targets.h"
#include "common/base/check.h"
#include "common/base/status_macros.h"

namespace mmapzero::replay {
namespace {

// Uniform double in [0, 1) from 53 random bits (portable).
double UnitDraw(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

absl::Status InvalidUpdate(int index, absl::string_view field,
                           absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("updates[", index, "].", field, ": ", what));
}

// Applies `update` to a copy's steps (already checked).
void ApplyUpdate(const v1::TargetUpdate& update, agent::Trajectory* t) {
  for (int i = 0; i < update.root_values_size(); ++i) {
    agent::TrajectoryStep& step = t->steps[update.first_step() + i];
    step.root_value = update.root_values(i);
    for (int a = 0; a < 3; ++a) step.policy[a] = update.policies(3 * i + a);
  }
}

}  // namespace

int64_t TrajectoryBytes(const agent::Trajectory& trajectory) {
  int64_t bytes = sizeof(agent::Trajectory);
  for (const agent::TrajectoryStep& step : trajectory.steps) {
    bytes += sizeof(step) + step.observation.occupancy.capacity() +
             step.observation.vector.capacity() * sizeof(float);
  }
  return bytes;
}

absl::StatusOr<Sampler> ParseSampler(absl::string_view name) {
  if (name == "uniform") return Sampler::kUniform;
  if (name == "prioritised") return Sampler::kPrioritised;
  return absl::InvalidArgumentError(absl::StrCat(
      "sampler: must be 'uniform' or 'prioritised', got '", name, "'"));
}

ReplayTable::ReplayTable(ReplayTableOptions options)
    : options_(options), limiter_(options.limiter), rng_(options.seed) {
  MMAPZERO_CHECK(options.capacity > 0, "replay capacity must be positive");
  MMAPZERO_CHECK(options.max_bytes >= 0, "replay max_bytes must be >= 0");
  counters_.set_capacity(options.capacity);
  counters_.set_max_bytes(options.max_bytes);
}

absl::Status ReplayTable::CheckShape(const agent::Trajectory& t, size_t index) {
  if (t.steps.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("trajectories[", index, "].steps: must not be empty"));
  }
  if (occupancy_size_ < 0) return absl::OkStatus();
  const agent::CompactObservation& first = t.steps.front().observation;
  if (static_cast<int64_t>(first.occupancy.size()) != occupancy_size_ ||
      static_cast<int64_t>(first.vector.size()) != vector_size_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "trajectories[", index, "].steps[0]: observation sizes (occupancy ",
        first.occupancy.size(), ", vector ", first.vector.size(),
        ") differ from this job's table (occupancy ", occupancy_size_,
        ", vector ", vector_size_, ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<uint64_t>> ReplayTable::Insert(
    std::vector<agent::Trajectory> trajectories) {
  std::vector<StoredTrajectory> stored;
  stored.reserve(trajectories.size());
  for (agent::Trajectory& t : trajectories) {
    StoredTrajectory s;
    s.targets_version = t.parameter_version;
    s.trajectory = std::make_shared<const agent::Trajectory>(std::move(t));
    stored.push_back(std::move(s));
  }
  absl::MutexLock lock(&mu_);
  for (size_t i = 0; i < stored.size(); ++i) {
    RETURN_IF_ERROR(CheckShape(*stored[i].trajectory, i));
    if (occupancy_size_ < 0) {  // the first ever: later ones must match it
      const auto& first = stored[i].trajectory->steps.front().observation;
      occupancy_size_ = first.occupancy.size();
      vector_size_ = first.vector.size();
    }
  }
  std::vector<uint64_t> ids;
  for (StoredTrajectory& s : stored) {
    const int64_t steps = agent::SampleableSteps(*s.trajectory);
    counters_.set_inserted(counters_.inserted() + 1);
    s.id = counters_.inserted();
    ids.push_back(s.id);
    limiter_.OnInsert(steps);
    Push(std::move(s));
  }
  EvictBeyondCapacity();
  ++generation_;
  return ids;
}

void ReplayTable::Push(StoredTrajectory stored) {
  Entry entry;
  entry.stored = std::move(stored);
  if (options_.sampler == Sampler::kPrioritised) ComputePriorities(&entry);
  positions_ += agent::SampleableSteps(*entry.stored.trajectory);
  bytes_ += TrajectoryBytes(*entry.stored.trajectory);
  entries_.push_back(std::move(entry));
  prefix_dirty_ = true;
}

void ReplayTable::EvictBeyondCapacity() {
  const auto over = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return static_cast<int64_t>(entries_.size()) > options_.capacity ||
           (options_.max_bytes > 0 && bytes_ > options_.max_bytes &&
            entries_.size() > 1);
  };
  while (over()) {
    positions_ -= agent::SampleableSteps(*entries_.front().stored.trajectory);
    bytes_ -= TrajectoryBytes(*entries_.front().stored.trajectory);
    entries_.pop_front();
    prefix_dirty_ = true;
  }
}

void ReplayTable::ComputePriorities(Entry* entry) const {
  const agent::Trajectory& t = *entry->stored.trajectory;
  const int64_t positions = agent::SampleableSteps(t);
  entry->cumulative.assign(positions + 1, 0.0);
  for (int64_t i = 0; i < positions; ++i) {
    const double z = agent::ValueTarget(t, static_cast<int>(i),
                                        options_.td_steps, options_.discount);
    const double error = std::abs(t.steps[i].root_value - z);
    entry->cumulative[i + 1] =
        entry->cumulative[i] +
        std::pow(error + options_.priority_epsilon, options_.priority_exponent);
  }
}

void ReplayTable::RebuildPrefix() {
  step_prefix_.assign(entries_.size() + 1, 0);
  priority_prefix_.assign(entries_.size() + 1, 0.0);
  for (size_t i = 0; i < entries_.size(); ++i) {
    step_prefix_[i + 1] =
        step_prefix_[i] + agent::SampleableSteps(*entries_[i].stored.trajectory);
    if (options_.sampler == Sampler::kPrioritised) {
      priority_prefix_[i + 1] =
          priority_prefix_[i] + entries_[i].cumulative.back();
    }
  }
  prefix_dirty_ = false;
}

SampledWindow ReplayTable::DrawWindow(std::mt19937_64& rng) {
  if (options_.sampler == Sampler::kUniform) {
    const int64_t s = agent::UniformBelow(rng, positions_);
    const size_t e =
        std::upper_bound(step_prefix_.begin(), step_prefix_.end(), s) -
        step_prefix_.begin() - 1;
    return {entries_[e].stored, static_cast<int32_t>(s - step_prefix_[e])};
  }
  const double u = UnitDraw(rng) * priority_prefix_.back();
  size_t e =
      std::upper_bound(priority_prefix_.begin(), priority_prefix_.end(), u) -
      priority_prefix_.begin() - 1;
  e = std::min(e, entries_.size() - 1);  // rounding at the top end
  const std::vector<double>& cumulative = entries_[e].cumulative;
  const double within = u - priority_prefix_[e];
  size_t step = std::upper_bound(cumulative.begin(), cumulative.end(), within) -
                cumulative.begin() - 1;
  step = std::min(step, cumulative.size() - 2);
  return {entries_[e].stored, static_cast<int32_t>(step)};
}

absl::StatusOr<std::vector<SampledWindow>> ReplayTable::SampleWindows(
    int count, uint64_t seed, absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  const auto allowed = [this, count]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return limiter_.CanSample(count, positions_).ok();
  };
  mu_.AwaitWithDeadline(absl::Condition(&allowed), deadline);
  RETURN_IF_ERROR(limiter_.CanSample(count, positions_));
  if (positions_ == 0) {
    return absl::FailedPreconditionError("replay: the table is empty");
  }
  if (prefix_dirty_) RebuildPrefix();
  std::mt19937_64 own(seed);
  std::mt19937_64& rng = seed == 0 ? rng_ : own;
  std::vector<SampledWindow> windows;
  windows.reserve(count);
  for (int i = 0; i < count; ++i) windows.push_back(DrawWindow(rng));
  limiter_.OnSample(count);
  counters_.set_sampled(counters_.sampled() + count);
  return windows;
}

std::vector<StoredTrajectory> ReplayTable::SampleTrajectories(int count,
                                                              uint64_t seed) {
  absl::MutexLock lock(&mu_);
  std::mt19937_64 own(seed);
  std::mt19937_64& rng = seed == 0 ? rng_ : own;
  std::vector<size_t> order(entries_.size());
  std::iota(order.begin(), order.end(), 0);
  const size_t n = std::min<size_t>(std::max(count, 0), order.size());
  std::vector<StoredTrajectory> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {  // partial Fisher-Yates
    const size_t j = i + agent::UniformBelow(rng, order.size() - i);
    std::swap(order[i], order[j]);
    out.push_back(entries_[order[i]].stored);
  }
  return out;
}

ReplayTable::Entry* ReplayTable::Find(uint64_t id) {
  if (entries_.empty() || id < entries_.front().stored.id) return nullptr;
  const uint64_t index = id - entries_.front().stored.id;
  if (index >= entries_.size()) return nullptr;
  return &entries_[index];
}

absl::Status ReplayTable::CheckUpdate(const v1::TargetUpdate& update,
                                      int index) {
  const uint64_t id = update.trajectory_id();
  if (id == 0 || id > static_cast<uint64_t>(counters_.inserted())) {
    return absl::NotFoundError(absl::StrCat(
        "updates[", index, "].trajectory_id: no trajectory ", id,
        " in this table (ids given so far: 1..", counters_.inserted(), ")"));
  }
  const int n = update.root_values_size();
  if (n == 0) return InvalidUpdate(index, "root_values", "must not be empty");
  if (update.policies_size() != 3 * n) {
    return InvalidUpdate(index, "policies",
                         absl::StrCat("must have 3 per root value (", 3 * n,
                                      "), got ", update.policies_size()));
  }
  for (int i = 0; i < n; ++i) {
    if (!std::isfinite(update.root_values(i))) {
      return InvalidUpdate(
          index, absl::StrCat("root_values[", i, "]"),
          absl::StrCat("must be finite, got ", update.root_values(i)));
    }
  }
  for (int i = 0; i < 3 * n; ++i) {
    const float p = update.policies(i);
    if (!std::isfinite(p) || p < 0) {
      return InvalidUpdate(index, absl::StrCat("policies[", i, "]"),
                           absl::StrCat("must be finite and >= 0, got ", p));
    }
  }
  const Entry* entry = Find(id);
  if (entry == nullptr) return absl::OkStatus();  // gone: counted later
  const int64_t steps = entry->stored.trajectory->steps.size();
  if (update.first_step() < 0 || update.first_step() + n > steps) {
    return InvalidUpdate(
        index, "first_step",
        absl::StrCat("steps [", update.first_step(), ", ",
                     int64_t{update.first_step()} + n,
                     ") do not fit trajectory ", id, " of ", steps, " steps"));
  }
  return absl::OkStatus();
}

absl::StatusOr<UpdateResult> ReplayTable::UpdateTargets(
    const v1::UpdateTargetsRequest& request) {
  // Check everything and note the versions seen under the lock, copy and
  // edit outside it, swap in under it (re-applying onto a trajectory that
  // another update replaced meanwhile).
  std::vector<std::shared_ptr<const agent::Trajectory>> seen(
      request.updates_size());
  {
    absl::MutexLock lock(&mu_);
    for (int i = 0; i < request.updates_size(); ++i) {
      RETURN_IF_ERROR(CheckUpdate(request.updates(i), i));
      if (const Entry* e = Find(request.updates(i).trajectory_id())) {
        seen[i] = e->stored.trajectory;
      }
    }
  }
  std::vector<std::shared_ptr<agent::Trajectory>> edited(seen.size());
  for (size_t i = 0; i < seen.size(); ++i) {
    if (seen[i] == nullptr) continue;
    edited[i] = std::make_shared<agent::Trajectory>(*seen[i]);
    ApplyUpdate(request.updates(i), edited[i].get());
  }
  UpdateResult result;
  absl::MutexLock lock(&mu_);
  for (size_t i = 0; i < seen.size(); ++i) {
    const v1::TargetUpdate& update = request.updates(i);
    Entry* entry = seen[i] == nullptr ? nullptr : Find(update.trajectory_id());
    if (entry == nullptr) {
      ++result.gone;
      continue;
    }
    if (entry->stored.trajectory != seen[i]) {
      edited[i] =
          std::make_shared<agent::Trajectory>(*entry->stored.trajectory);
      ApplyUpdate(update, edited[i].get());
    }
    entry->stored.trajectory = std::move(edited[i]);
    entry->stored.targets_version =
        std::max(entry->stored.targets_version, update.parameter_version());
    if (options_.sampler == Sampler::kPrioritised) ComputePriorities(entry);
    ++result.updated;
  }
  prefix_dirty_ = true;
  counters_.set_reanalysed(counters_.reanalysed() + result.updated);
  ++generation_;
  return result;
}

void ReplayTable::SetCapacity(int64_t capacity) {
  MMAPZERO_CHECK(capacity > 0, "replay capacity must be positive");
  absl::MutexLock lock(&mu_);
  if (capacity == options_.capacity) return;
  options_.capacity = capacity;
  counters_.set_capacity(capacity);
  EvictBeyondCapacity();
  ++generation_;
}

void ReplayTable::SetMaxBytes(int64_t max_bytes) {
  MMAPZERO_CHECK(max_bytes >= 0, "replay max_bytes must be >= 0");
  absl::MutexLock lock(&mu_);
  if (max_bytes == options_.max_bytes) return;
  options_.max_bytes = max_bytes;
  counters_.set_max_bytes(max_bytes);
  const size_t held = entries_.size();
  EvictBeyondCapacity();
  if (entries_.size() != held) ++generation_;
}

void ReplayTable::SetValueTarget(int td_steps, double discount) {
  absl::MutexLock lock(&mu_);
  if (td_steps == options_.td_steps && discount == options_.discount) return;
  options_.td_steps = td_steps;
  options_.discount = discount;
  if (options_.sampler != Sampler::kPrioritised) return;
  for (Entry& entry : entries_) ComputePriorities(&entry);
  prefix_dirty_ = true;
}

void ReplayTable::SetLimiter(const RateLimiterOptions& limiter) {
  absl::MutexLock lock(&mu_);
  limiter_.set_options(limiter);
}

int64_t ReplayTable::ObservationBytes() const {
  absl::MutexLock lock(&mu_);
  if (occupancy_size_ < 0) return 0;
  return occupancy_size_ + vector_size_ * static_cast<int64_t>(sizeof(float));
}

v1::ReplayStats ReplayTable::Stats() const {
  absl::MutexLock lock(&mu_);
  v1::ReplayStats stats = counters_;
  stats.set_trajectories(entries_.size());
  stats.set_positions(positions_);
  stats.set_bytes(bytes_);
  if (!entries_.empty()) {
    int64_t newest = std::numeric_limits<int64_t>::min();
    int64_t oldest = std::numeric_limits<int64_t>::max();
    for (const Entry& e : entries_) {
      newest = std::max(newest, e.stored.trajectory->parameter_version);
      oldest = std::min(oldest, e.stored.trajectory->parameter_version);
    }
    stats.set_newest_parameter_version(newest);
    stats.set_oldest_parameter_version(oldest);
  }
  return stats;
}

int64_t ReplayTable::positions_inserted() const {
  absl::MutexLock lock(&mu_);
  return limiter_.inserted();
}

int64_t ReplayTable::generation() const {
  absl::MutexLock lock(&mu_);
  return generation_;
}

TableSnapshot ReplayTable::Snapshot() const {
  absl::MutexLock lock(&mu_);
  TableSnapshot snapshot;
  snapshot.stats = counters_;
  snapshot.entries.reserve(entries_.size());
  for (const Entry& e : entries_) snapshot.entries.push_back(e.stored);
  return snapshot;
}

absl::Status ReplayTable::Restore(TableSnapshot snapshot) {
  for (size_t i = 0; i < snapshot.entries.size(); ++i) {
    const StoredTrajectory& s = snapshot.entries[i];
    if (s.trajectory == nullptr || s.trajectory->steps.empty() || s.id == 0 ||
        (i > 0 && s.id != snapshot.entries[i - 1].id + 1) ||
        s.id > static_cast<uint64_t>(snapshot.stats.inserted())) {
      return absl::InvalidArgumentError(
          absl::StrCat("replay snapshot: entry ", i, " (id ", s.id,
                       ") is empty or out of order"));
    }
  }
  absl::MutexLock lock(&mu_);
  entries_.clear();
  positions_ = 0;
  bytes_ = 0;
  occupancy_size_ = vector_size_ = -1;
  if (!snapshot.entries.empty()) {
    const auto& first = snapshot.entries.front().trajectory->steps.front();
    occupancy_size_ = first.observation.occupancy.size();
    vector_size_ = first.observation.vector.size();
  }
  counters_ = snapshot.stats;
  counters_.set_capacity(options_.capacity);
  counters_.set_max_bytes(options_.max_bytes);
  for (StoredTrajectory& s : snapshot.entries) Push(std::move(s));
  EvictBeyondCapacity();
  limiter_ = RateLimiter(limiter_.options());
  limiter_.OnInsert(positions_);
  ++generation_;
  return absl::OkStatus();
}

}  // namespace mmapzero::replay
