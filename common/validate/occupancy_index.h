// The allocations made so far, indexed by their last time step, so the
// replay can ask which bytes are taken over a time window without a dense
// time x bytes grid: a query touches only allocations that end at or after
// the window's first step.
#ifndef MMAPZERO_COMMON_VALIDATE_OCCUPANCY_INDEX_H_
#define MMAPZERO_COMMON_VALIDATE_OCCUPANCY_INDEX_H_

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "common/validate/allocation.h"

namespace mmapzero::validate {

class OccupancyIndex {
 public:
  void Add(const Allocation& allocation);

  // True when no allocation overlapping steps [first, last] holds any byte
  // of [offset, offset + size).
  bool IsFree(int first, int last, int64_t offset, int64_t size) const;

  // The lowest multiple of `alignment` (0 or 1: any offset) at which `size`
  // bytes are free over steps [first, last] and end by `memory_size`.
  std::optional<int64_t> LowestFreeOffset(int first, int last, int64_t size,
                                          int64_t alignment,
                                          int64_t memory_size) const;

 private:
  // Indices into allocations_ of those overlapping steps [first, last].
  std::vector<int> Overlapping(int first, int last) const;

  std::vector<Allocation> allocations_;
  std::map<int, std::vector<int>> by_last_step_;
};

// `value` rounded up to a multiple of `alignment` (0 or 1: unchanged).
int64_t AlignUp(int64_t value, int64_t alignment);

}  // namespace mmapzero::validate

#endif  // MMAPZERO_COMMON_VALIDATE_OCCUPANCY_INDEX_H_
