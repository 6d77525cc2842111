// Finds fast-memory allocations that overlap in time x bytes, with one sweep
// over time instead of a dense grid: allocations enter in order of their
// first step, leave after their last, and each entering one is compared
// only with the active ones that could hold its bytes. O(n log n) plus the
// conflicts found, so 20,000-buffer solutions take milliseconds.
#ifndef MMAPZERO_COMMON_VALIDATE_OVERLAP_SWEEP_H_
#define MMAPZERO_COMMON_VALIDATE_OVERLAP_SWEEP_H_

#include <vector>

#include "absl/types/span.h"
#include "common/validate/allocation.h"

namespace mmapzero::validate {

struct AllocationOverlap {
  int index = -1;        // the allocation that enters while...
  int other_index = -1;  // ...this one holds some of its bytes
};

// One overlap per allocation that overlaps any allocation entering before
// it (by first step, then by index), so every overlapping pair shows up
// through its later member. Alias-group members sharing their bytes
// (SharedByAliasGroup) do not overlap. Indices are into `allocations`.
std::vector<AllocationOverlap> FindOverlaps(
    absl::Span<const Allocation> allocations,
    const AliasTensors& alias_tensors = {});

}  // namespace mmapzero::validate

#endif  // MMAPZERO_COMMON_VALIDATE_OVERLAP_SWEEP_H_
