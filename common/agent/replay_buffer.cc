#include "common/agent/replay_buffer.h"

#include <algorithm>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/agent/snapshot_file.h"
#include "common/agent/trajectory_proto.h"
#include "common/base/check.h"

namespace mmapzero::agent {
namespace {

// Bump the version when the layout changes. Version 2: trajectories as
// v1::Trajectory messages (trajectory_proto.h), every field that training
// reads kept; version 1 lost the demonstration, segment, context and
// fast-move flags.
constexpr SnapshotFormat kFormat = {.magic = "MZRB",
                                    .version = 2,
                                    .name = "replay snapshot",
                                    .kind = "replay snapshot"};

}  // namespace

uint64_t UniformBelow(std::mt19937_64& rng, uint64_t n) {
  // Largest multiple of n that fits; draws at or above it are rejected.
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t draw = rng();
  while (draw >= limit) draw = rng();
  return draw % n;
}

ReplayBuffer::ReplayBuffer(int64_t capacity, uint64_t seed)
    : capacity_(capacity), rng_(seed) {
  MMAPZERO_CHECK(capacity > 0, "replay capacity must be positive");
}

int64_t ReplayBuffer::Insert(Trajectory trajectory) {
  if (SampleableSteps(trajectory) <= 0) return -1;
  auto shared = std::make_shared<const Trajectory>(std::move(trajectory));
  absl::MutexLock lock(&mu_);
  while (static_cast<int64_t>(entries_.size()) >= capacity_) {
    total_steps_ -= SampleableSteps(*entries_.front().trajectory);
    entries_.pop_front();
  }
  const int64_t id = counters_.inserted++;
  total_steps_ += SampleableSteps(*shared);
  entries_.push_back({id, std::move(shared)});
  prefix_dirty_ = true;
  return id;
}

void ReplayBuffer::RebuildPrefix() {
  prefix_.resize(entries_.size() + 1);
  prefix_[0] = 0;
  for (size_t i = 0; i < entries_.size(); ++i) {
    prefix_[i + 1] = prefix_[i] + SampleableSteps(*entries_[i].trajectory);
  }
  prefix_dirty_ = false;
}

size_t ReplayBuffer::EntryOfStep(int64_t s) const {
  // The last i with prefix_[i] <= s.
  return std::upper_bound(prefix_.begin(), prefix_.end(), s) - prefix_.begin() -
         1;
}

std::vector<SampledPosition> ReplayBuffer::Sample(int count) {
  std::vector<SampledPosition> out;
  absl::MutexLock lock(&mu_);
  if (total_steps_ == 0 || count <= 0) return out;
  if (prefix_dirty_) RebuildPrefix();
  out.reserve(count);
  for (int i = 0; i < count; ++i) {
    const int64_t s = UniformBelow(rng_, total_steps_);
    const size_t e = EntryOfStep(s);
    out.push_back({entries_[e].id, static_cast<int32_t>(s - prefix_[e]),
                   entries_[e].trajectory});
  }
  counters_.sampled += count;
  return out;
}

std::shared_ptr<const Trajectory> ReplayBuffer::Get(int64_t id) const {
  absl::MutexLock lock(&mu_);
  if (entries_.empty() || id < entries_.front().id) return nullptr;
  // Ids are consecutive from the front.
  const uint64_t index = id - entries_.front().id;
  if (index >= entries_.size()) return nullptr;
  return entries_[index].trajectory;
}

absl::Status ReplayBuffer::UpdateTargets(
    int64_t id, absl::Span<const StepTargets> targets) {
  std::shared_ptr<const Trajectory> old = Get(id);
  if (old == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("replay: trajectory ", id, " is not stored (evicted?)"));
  }
  // Copy outside the lock; swap in under it if still stored.
  auto updated = std::make_shared<Trajectory>(*old);
  for (const StepTargets& t : targets) {
    if (t.step < 0 || t.step >= static_cast<int32_t>(updated->steps.size())) {
      return absl::OutOfRangeError(
          absl::StrCat("replay: trajectory ", id, " has no step ", t.step));
    }
    updated->steps[t.step].root_value = t.root_value;
    updated->steps[t.step].policy = t.policy;
  }
  absl::MutexLock lock(&mu_);
  if (entries_.empty() || id < entries_.front().id ||
      id - entries_.front().id >= static_cast<int64_t>(entries_.size())) {
    return absl::NotFoundError(absl::StrCat("replay: trajectory ", id,
                                            " was evicted during the update"));
  }
  // Another updater may have replaced it meanwhile; the last write wins for
  // the steps it lists, and the other steps keep the newest values.
  Entry& entry = entries_[id - entries_.front().id];
  if (entry.trajectory != old) {
    auto merged = std::make_shared<Trajectory>(*entry.trajectory);
    for (const StepTargets& t : targets) {
      merged->steps[t.step].root_value = t.root_value;
      merged->steps[t.step].policy = t.policy;
    }
    updated = std::move(merged);
  }
  entry.trajectory = std::move(updated);
  counters_.updated += targets.size();
  return absl::OkStatus();
}

int64_t ReplayBuffer::size() const {
  absl::MutexLock lock(&mu_);
  return entries_.size();
}

int64_t ReplayBuffer::total_steps() const {
  absl::MutexLock lock(&mu_);
  return total_steps_;
}

ReplayCounters ReplayBuffer::counters() const {
  absl::MutexLock lock(&mu_);
  return counters_;
}

absl::Status ReplayBuffer::Save(const std::string& path) const {
  SnapshotWriter w(kFormat);
  {
    absl::MutexLock lock(&mu_);
    w.Put<int64_t>(counters_.inserted);
    w.Put<int64_t>(counters_.sampled);
    w.Put<int64_t>(counters_.updated);
    std::ostringstream rng_state;
    rng_state << rng_;
    w.PutString(rng_state.str());
    w.Put<uint64_t>(entries_.size());
    v1::Trajectory proto;
    for (const Entry& e : entries_) {
      w.Put<int64_t>(e.id);
      TrajectoryToProto(*e.trajectory, &proto);
      w.PutMessage(proto);
    }
  }
  return w.WriteTo(path);
}

absl::Status ReplayBuffer::Restore(const std::string& path) {
  absl::StatusOr<SnapshotReader> reader = SnapshotReader::Open(path, kFormat);
  if (!reader.ok()) return reader.status();
  SnapshotReader& r = *reader;
  ReplayCounters counters;
  std::string rng_text;
  uint64_t count = 0;
  if (!r.Get(&counters.inserted) || !r.Get(&counters.sampled) ||
      !r.Get(&counters.updated) || !r.GetString(&rng_text) || !r.Get(&count)) {
    return r.Corrupt("truncated header");
  }
  if (static_cast<int64_t>(count) > capacity_) {
    return absl::InvalidArgumentError(
        absl::StrCat("replay snapshot ", path, ": holds ", count,
                     " trajectories, more than the capacity ", capacity_));
  }
  std::deque<Entry> entries;
  int64_t total = 0;
  v1::Trajectory proto;
  for (uint64_t i = 0; i < count; ++i) {
    Entry e;
    if (!r.Get(&e.id) || !r.GetMessage(&proto)) {
      return r.Corrupt(absl::StrCat("truncated at trajectory ", i));
    }
    absl::StatusOr<Trajectory> t =
        TrajectoryFromProto(proto, absl::StrCat("trajectories[", i, "]"));
    if (!t.ok()) return r.Corrupt(t.status().message());
    total += SampleableSteps(*t);
    e.trajectory = std::make_shared<const Trajectory>(*std::move(t));
    entries.push_back(std::move(e));
  }
  if (!r.done()) return r.Corrupt("trailing bytes");
  std::mt19937_64 rng;
  std::istringstream rng_in(rng_text);
  rng_in >> rng;
  if (rng_in.fail()) return r.Corrupt("bad generator state");

  absl::MutexLock lock(&mu_);
  entries_ = std::move(entries);
  total_steps_ = total;
  counters_ = counters;
  rng_ = rng;
  prefix_dirty_ = true;
  return absl::OkStatus();
}

}  // namespace mmapzero::agent
