// One job's replay table (docs/protocols.md): whole self-play
// trajectories in insertion order, evicted oldest first beyond `capacity`
// trajectories (TrainingConfig.replay_size counts trajectories, as in
// common/agent/replay_buffer.h) or beyond `max_bytes` of memory, sampled
// as positions (trajectory, step; a segment's context steps are none).
// The byte limit is what bounds memory: a step's observation takes about
// 1.6 KB with the `cpu` preset and 17 KB with `paper`, so 2,000 games of
// 3,000 steps would need 10-100 GB.
//
// Why not agent::ReplayBuffer: the service needs ids that start at 1 (0
// means "unset" on the wire), a per-trajectory targets_version, a
// prioritised sampler, a rate limiter that a sampler can wait on, and
// all-or-nothing batch updates; the in-process buffer has none of these.
//
// Samplers, chosen by name ("uniform", "prioritised"):
//  - uniform: every stored step equally likely, so long games are sampled
//    in proportion to their length (MuZero, Reverb's Uniform selector);
//  - prioritised: step t with probability proportional to
//    (|root_value_t - z_t| + epsilon)^alpha, z_t the n-step value target
//    (agent::ValueTarget with the job's td_steps and discount), recomputed
//    when reanalyse writes fresh targets (MuZero Appendix G). The wire has
//    no importance weights, so the learner's loss is not de-biased.
//
// Stored trajectories are immutable and shared: samples hand out shared
// pointers, and UpdateTargets swaps in an updated copy, so a reader never
// sees a trajectory change. Thread-safe: one mutex guards the table.
#ifndef MMAPZERO_REPLAY_REPLAY_TABLE_H_
#define MMAPZERO_REPLAY_REPLAY_TABLE_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/agent/trajectory.h"
#include "proto/replay.pb.h"
#include "replay/rate_limiter.h"

namespace mmapzero::replay {

enum class Sampler { kUniform, kPrioritised };

// The memory one stored trajectory takes: its steps and their observations.
int64_t TrajectoryBytes(const agent::Trajectory& trajectory);

// "uniform" or "prioritised"; InvalidArgument naming `name` otherwise.
absl::StatusOr<Sampler> ParseSampler(absl::string_view name);

struct ReplayTableOptions {
  int64_t capacity = 2000;  // trajectories, > 0
  // Memory of the held trajectories (TrajectoryBytes); 0: no limit. The
  // newest trajectory is always kept, even when it alone is larger.
  int64_t max_bytes = 0;
  Sampler sampler = Sampler::kUniform;
  double priority_exponent = 1.0;  // alpha
  double priority_epsilon = 1e-3;  // keeps every step samplable
  int td_steps = 10;               // n of the priorities' value target
  double discount = 1.0;
  RateLimiterOptions limiter;
  uint64_t seed = 1;  // the table's own sampling stream

  bool operator==(const ReplayTableOptions&) const = default;
};

struct StoredTrajectory {
  uint64_t id = 0;
  int64_t targets_version = 0;
  std::shared_ptr<const agent::Trajectory> trajectory;
};

struct SampledWindow {
  StoredTrajectory stored;
  int32_t start = 0;
};

struct UpdateResult {
  int32_t updated = 0;
  int32_t gone = 0;  // evicted since they were handed out
};

// What a checkpoint holds (table_checkpoint.h).
struct TableSnapshot {
  v1::ReplayStats stats;                  // counters and capacity
  std::vector<StoredTrajectory> entries;  // oldest first
};

class ReplayTable {
 public:
  explicit ReplayTable(ReplayTableOptions options);

  // Adds whole trajectories (checked by agent::TrajectoryFromProto) and
  // returns their ids, in order. All or nothing: InvalidArgument naming
  // `trajectories[i]` when one is empty or its observation sizes differ
  // from the table's (set by the first trajectory ever stored).
  absl::StatusOr<std::vector<uint64_t>> Insert(
      std::vector<agent::Trajectory> trajectories) ABSL_LOCKS_EXCLUDED(mu_);

  // `count` windows' starts drawn by the sampler (with replacement). Waits
  // until `deadline` while the rate limiter holds them back, then
  // FailedPrecondition saying why. `seed` 0: the table's own stream; else a
  // stream of its own, so the same seed on the same contents gives the
  // same windows.
  absl::StatusOr<std::vector<SampledWindow>> SampleWindows(int count,
                                                           uint64_t seed,
                                                           absl::Time deadline)
      ABSL_LOCKS_EXCLUDED(mu_);

  // Up to `count` distinct whole trajectories, uniformly (reanalyse).
  std::vector<StoredTrajectory> SampleTrajectories(int count, uint64_t seed)
      ABSL_LOCKS_EXCLUDED(mu_);

  // Writes reanalysed root values and policies. All or nothing: NotFound
  // for an id this table never gave out, InvalidArgument for bad sizes,
  // ranges or values, each naming `updates[i].<field>`. Ids evicted
  // meanwhile count as `gone`.
  absl::StatusOr<UpdateResult> UpdateTargets(
      const v1::UpdateTargetsRequest& request) ABSL_LOCKS_EXCLUDED(mu_);

  // Evicts the oldest beyond `capacity` (> 0).
  void SetCapacity(int64_t capacity) ABSL_LOCKS_EXCLUDED(mu_);
  // A new memory limit (0: none); evicts oldest first down to it.
  void SetMaxBytes(int64_t max_bytes) ABSL_LOCKS_EXCLUDED(mu_);
  // The priorities' value target (recomputes every priority when changed).
  void SetValueTarget(int td_steps, double discount) ABSL_LOCKS_EXCLUDED(mu_);
  void SetLimiter(const RateLimiterOptions& limiter) ABSL_LOCKS_EXCLUDED(mu_);

  v1::ReplayStats Stats() const ABSL_LOCKS_EXCLUDED(mu_);
  // Bytes of one stored observation (occupancy and vector); 0 before the
  // first insert. Every sampled window carries one, so a batch of B
  // windows is at least B times this: a request is sized before it runs.
  int64_t ObservationBytes() const ABSL_LOCKS_EXCLUDED(mu_);
  int64_t positions_inserted() const ABSL_LOCKS_EXCLUDED(mu_);

  // Counts changes (inserts, updates, evictions); checkpoints compare it.
  int64_t generation() const ABSL_LOCKS_EXCLUDED(mu_);
  TableSnapshot Snapshot() const ABSL_LOCKS_EXCLUDED(mu_);
  // Replaces the contents. InvalidArgument when ids are not consecutive
  // and increasing or a trajectory is empty.
  absl::Status Restore(TableSnapshot snapshot) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Entry {
    StoredTrajectory stored;
    // Prioritised: cumulative priorities, size steps + 1.
    std::vector<double> cumulative;
  };

  absl::Status CheckShape(const agent::Trajectory& t, size_t index)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Push(StoredTrajectory stored) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void EvictBeyondCapacity() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ComputePriorities(Entry* entry) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RebuildPrefix() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  SampledWindow DrawWindow(std::mt19937_64& rng)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The entry of `id`, or null when evicted or never given out.
  Entry* Find(uint64_t id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CheckUpdate(const v1::TargetUpdate& update, int index)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  ReplayTableOptions options_ ABSL_GUARDED_BY(mu_);
  std::deque<Entry> entries_ ABSL_GUARDED_BY(mu_);  // oldest first
  int64_t positions_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  // Per entry, the sampler's weight before it: steps (uniform) or summed
  // priorities (prioritised); size entries_ + 1 once rebuilt.
  std::vector<int64_t> step_prefix_ ABSL_GUARDED_BY(mu_);
  std::vector<double> priority_prefix_ ABSL_GUARDED_BY(mu_);
  bool prefix_dirty_ ABSL_GUARDED_BY(mu_) = true;
  int64_t occupancy_size_ ABSL_GUARDED_BY(mu_) = -1;  // -1: none yet
  int64_t vector_size_ ABSL_GUARDED_BY(mu_) = -1;
  v1::ReplayStats counters_ ABSL_GUARDED_BY(mu_);  // inserted, sampled, ...
  RateLimiter limiter_ ABSL_GUARDED_BY(mu_);
  int64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
  std::mt19937_64 rng_ ABSL_GUARDED_BY(mu_);
};

}  // namespace mmapzero::replay

#endif  // MMAPZERO_REPLAY_REPLAY_TABLE_H_
