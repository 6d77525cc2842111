// Builds MMap-MuZero's observation of a game state (paper 4.3.1) from the
// engine's public accessors, into a reused Observation of fixed sizes.
//
// Layout of Observation::vector, section by section (B = 1 + next_buffers
// + same_tensor_buffers buffer slots; "soft(x, s)" is x / (|x| + s), in
// (-1, 1); s_t = max(1, occupancy_window_steps / 2) steps; s_l = the
// program's mean instruction latency, sum_t L_t({}) / T):
//   buffer slots     12 * B: the current buffer, the next_buffers buffers
//                    after it in decision order, the same_tensor_buffers
//                    next buffers of its tensor (kBufferFeatures each)
//   target occupancy target_occupancy_bins: occupancy at the target time
//   supply window    supply_window_steps: copy supply left in steps
//                    [t - w/2, t - w/2 + w - 1], soft(supply, s_l)
//   actions          3 * 6: per action (Copy, NoCopy, Drop), below
//   global           10, below
//   hardware         6: the hardware profile's numbers, below
// Every size, time and offset is relative to the program (its steps, its
// mean latency, its buffers) or to the fast memory, and the section sizes
// depend on the FeatureConfig alone, so one network plays programs of any
// size on any profile; no program-specific id appears.
//
// Per buffer slot (zeros when the slot is empty, e.g. near the end):
//   0 present, 1 log2(1 + size) / log2(1 + memory_size), 2 is_output,
//   3 soft(target_time - t, s_t), 4 soft(live_start - t, s_t),
//   5 soft(live_end - t, s_t), 6 demand / (demand + s_l),
//   7 benefit / (benefit + s_l), 8 in an alias group,
//   9 group size n / (n + 4) (0 outside a group), 10 same tensor as the
//   current buffer, 11 same alias group as the current buffer.
// Per action: 0 legal, 1 has an allocation, 2 soft(interval_start - t, s_t),
//   3 soft(interval_end - t, s_t), 4 offset / memory_size, 5 soft(reward,
//   s_l); all zero when the action is illegal.
// Global: 0 moves played (including backed-up ones) / buffers, 1 depth /
//   buffers, 2 t / steps, 3 in an alias group, 4 rank in the group (members
//   before it in decision order) / n, 5 members after it / n, 6 group already
//   decided (an earlier member was decided), 7 drop_backups / (1 +
//   drop_backups), 8 return so far / max return, 9 bias (1).
// Hardware (Workload.hardware and memory_size; the same for every state of
//   a program): 0 the profile is given (a slow-memory bandwidth; else 1-4
//   are 0), 1 log2(1 + memory_size) / 48 (the fast memory the game has, in
//   bytes), 2 log2(fast / slow bandwidth) / 8, 3 log2(copy / slow
//   bandwidth) / 8, both clamped to [-1, 1], 4 log2(1 + the roofline's
//   ridge point, peak FLOP/s over slow-memory bytes/s) / 16, at most 1,
//   5 log2(alignment) / log2(1 + memory_size).
//
// Observation::occupancy is OccupancyGrid(t - W/2, t - W/2 + W - 1,
// occupancy_time_bins, occupancy_byte_bins) with W = occupancy_window_steps:
// each cell the occupied fraction, clamped to [0, 1] (members of an alias
// group share their bytes, so the engine's sums may exceed 1). The
// occupancy at the target time (in the vector) is clamped the same way.
//
// A terminal state gives all zeros. Observe() allocates only on the first
// call with a given `out` (and once per program and thread for a small
// per-program table); it is deterministic.
#ifndef MMAPZERO_COMMON_FEATURES_FEATURE_EXTRACTOR_H_
#define MMAPZERO_COMMON_FEATURES_FEATURE_EXTRACTOR_H_

#include "common/features/observation.h"
#include "common/game/mmap_game.h"
#include "proto/muzero.pb.h"

namespace mmapzero::features {

inline constexpr int kBufferFeatures = 12;
inline constexpr int kActionFeatures = 6;
inline constexpr int kGlobalFeatures = 10;
inline constexpr int kHardwareFeatures = 6;

// Number of buffer slots: current + next_buffers + same_tensor_buffers.
int BufferSlots(const FeatureConfig& config);
// Offsets of the sections of Observation::vector.
int TargetOccupancyOffset(const FeatureConfig& config);
int SupplyOffset(const FeatureConfig& config);
int ActionOffset(const FeatureConfig& config);
int GlobalOffset(const FeatureConfig& config);
int HardwareOffset(const FeatureConfig& config);

// Length of Observation::vector.
int VectorSize(const FeatureConfig& config);
// Length of Observation::occupancy (time_bins * byte_bins).
int OccupancySize(const FeatureConfig& config);

// Fills `out` for the game's current state; reuses its capacity.
void Observe(const game::MMapGame& game, const FeatureConfig& config,
             Observation* out);

}  // namespace mmapzero::features

#endif  // MMAPZERO_COMMON_FEATURES_FEATURE_EXTRACTOR_H_
