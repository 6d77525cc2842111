// The replay table of the learner (MuZero's ReplayBuffer; Reverb's table with
// a FIFO remover and a uniform selector): whole self-play trajectories,
// evicted oldest first once `capacity` trajectories are stored
// (TrainingConfig.replay_size counts TRAJECTORIES, not steps), and sampled
// as positions (trajectory, step) uniformly over all stored steps, so long
// games are sampled in proportion to their length. A segment's context
// steps (Trajectory.context_steps) are never positions.
//
// Trajectories are immutable once shared: Sample hands out shared pointers,
// and UpdateTargets (reanalyse) replaces a trajectory by an updated copy, so
// a sampled trajectory never changes under its reader.
//
// Thread-safety: every method may be called from any thread; the table, the
// counters and the sampling generator are guarded by one mutex.
// Determinism: Sample draws from a std::mt19937_64 owned by the buffer, with
// integer arithmetic only (no <random> distributions), and Save/Restore keep
// its state, so a restored buffer samples what the original would have.
#ifndef MMAPZERO_COMMON_AGENT_REPLAY_BUFFER_H_
#define MMAPZERO_COMMON_AGENT_REPLAY_BUFFER_H_

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "common/agent/trajectory.h"

namespace mmapzero::agent {

// One sampled position: step `step` of the trajectory with id `id`.
struct SampledPosition {
  int64_t id = 0;  // ids count insertions from 0; stable across eviction
  int32_t step = 0;
  std::shared_ptr<const Trajectory> trajectory;
};

// Fresh search targets for one step (reanalyse).
struct StepTargets {
  int32_t step = 0;
  float root_value = 0;
  std::array<float, 3> policy{};
};

struct ReplayCounters {
  int64_t inserted = 0;  // trajectories ever inserted (= next id)
  int64_t sampled = 0;   // positions ever sampled
  int64_t updated = 0;   // steps whose targets were refreshed
};

class ReplayBuffer {
 public:
  // `capacity` > 0 trajectories (CHECKed).
  ReplayBuffer(int64_t capacity, uint64_t seed);

  // Stores `trajectory` (empty ones are ignored), evicting the oldest when
  // full. Returns its id, or -1 when ignored.
  int64_t Insert(Trajectory trajectory) ABSL_LOCKS_EXCLUDED(mu_);

  // `count` positions drawn uniformly (with replacement) over all stored
  // steps; empty when nothing is stored.
  std::vector<SampledPosition> Sample(int count) ABSL_LOCKS_EXCLUDED(mu_);

  // The stored trajectory `id`, or null when evicted / never inserted.
  std::shared_ptr<const Trajectory> Get(int64_t id) const
      ABSL_LOCKS_EXCLUDED(mu_);

  // Replaces the root value and policy of the listed steps of trajectory
  // `id`. NotFound when it was evicted meanwhile (reanalyse races with
  // insertion; the caller drops the update); OutOfRange for a bad step.
  absl::Status UpdateTargets(int64_t id, absl::Span<const StepTargets> targets)
      ABSL_LOCKS_EXCLUDED(mu_);

  int64_t size() const ABSL_LOCKS_EXCLUDED(mu_);         // trajectories
  // Positions over them (steps less context steps).
  int64_t total_steps() const ABSL_LOCKS_EXCLUDED(mu_);
  int64_t capacity() const { return capacity_; }
  ReplayCounters counters() const ABSL_LOCKS_EXCLUDED(mu_);

  // Versioned binary snapshot (snapshot_file.h: trajectories, ids,
  // counters, generator state) written atomically to `path`; Restore replaces
  // this buffer's contents with it (its capacity must be at least the stored
  // count).
  absl::Status Save(const std::string& path) const ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status Restore(const std::string& path) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Entry {
    int64_t id;
    std::shared_ptr<const Trajectory> trajectory;
  };
  // Index into entries_ of the entry holding global step `s`.
  size_t EntryOfStep(int64_t s) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RebuildPrefix() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int64_t capacity_;
  mutable absl::Mutex mu_;
  std::deque<Entry> entries_ ABSL_GUARDED_BY(mu_);  // oldest first
  // prefix_[i] = steps in entries_[0..i); rebuilt lazily.
  std::vector<int64_t> prefix_ ABSL_GUARDED_BY(mu_);
  bool prefix_dirty_ ABSL_GUARDED_BY(mu_) = true;
  int64_t total_steps_ ABSL_GUARDED_BY(mu_) = 0;
  ReplayCounters counters_ ABSL_GUARDED_BY(mu_);
  std::mt19937_64 rng_ ABSL_GUARDED_BY(mu_);
};

// Uniform integer in [0, n) from `rng` by rejection (portable across
// standard libraries, unlike std::uniform_int_distribution). n > 0.
uint64_t UniformBelow(std::mt19937_64& rng, uint64_t n);

}  // namespace mmapzero::agent

#endif  // MMAPZERO_COMMON_AGENT_REPLAY_BUFFER_H_
