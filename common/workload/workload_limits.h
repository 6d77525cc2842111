// The largest workload anything here accepts. Every entry point (the
// workload check, hardware profiles, the HLO importer) refuses more, so that
// the engine, validator and solvers can add sizes and offsets in int64
// without overflow: two offsets or sizes of at most 2^48 bytes, or the sizes
// of all buffers together (at most 2^60), never reach 2^63. A real program
// is far inside: 2^48 bytes is 256 TiB, 2^24 instructions or buffers is 200
// times the largest module measured here.
#ifndef MMAPZERO_COMMON_WORKLOAD_WORKLOAD_LIMITS_H_
#define MMAPZERO_COMMON_WORKLOAD_WORKLOAD_LIMITS_H_

#include <cstdint>

namespace mmapzero {

// Sizes, memory capacities and alignments, in bytes.
inline constexpr int64_t kMaxBytes = int64_t{1} << 48;
// All buffers' sizes added together.
inline constexpr int64_t kMaxTotalBufferBytes = int64_t{1} << 60;
inline constexpr int kMaxInstructions = 1 << 24;
inline constexpr int kMaxBuffers = 1 << 24;
// A loop's trip count, and the repeat of a step (the product of the trip
// counts of the loops around it): far beyond any real program, and small
// enough that a latency times its repeat stays a finite double.
inline constexpr int64_t kMaxTripCount = int64_t{1} << 31;
inline constexpr double kMaxRepeat = 1e12;
// Names, opcodes and provenance entries, in bytes.
inline constexpr int kMaxNameLength = 4096;

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_WORKLOAD_WORKLOAD_LIMITS_H_
