#include "common/validate/occupancy_index.h"

#include <algorithm>
#include <utility>

namespace mmapzero::validate {

int64_t AlignUp(int64_t value, int64_t alignment) {
  if (alignment <= 1) return value;
  const int64_t remainder = value % alignment;
  return remainder == 0 ? value : value + (alignment - remainder);
}

void OccupancyIndex::Add(const Allocation& allocation) {
  by_last_step_[allocation.last_step].push_back(
      static_cast<int>(allocations_.size()));
  allocations_.push_back(allocation);
}

std::vector<int> OccupancyIndex::Overlapping(int first, int last) const {
  std::vector<int> found;
  for (auto it = by_last_step_.lower_bound(first); it != by_last_step_.end();
       ++it) {
    for (int index : it->second) {
      if (allocations_[index].first_step <= last) found.push_back(index);
    }
  }
  return found;
}

bool OccupancyIndex::IsFree(int first, int last, int64_t offset,
                            int64_t size) const {
  for (int index : Overlapping(first, last)) {
    if (OverlapInBytes(allocations_[index], offset, size)) return false;
  }
  return true;
}

std::optional<int64_t> OccupancyIndex::LowestFreeOffset(
    int first, int last, int64_t size, int64_t alignment,
    int64_t memory_size) const {
  std::vector<std::pair<int64_t, int64_t>> taken;  // [begin, end) bytes
  for (int index : Overlapping(first, last)) {
    taken.emplace_back(allocations_[index].offset,
                       allocations_[index].end_byte());
  }
  std::sort(taken.begin(), taken.end());
  // Candidates only move up: each range met that blocks the candidate pushes
  // it to the range's aligned end; ranges further on start no lower.
  int64_t candidate = 0;
  for (const auto& [begin, end] : taken) {
    if (end <= candidate) continue;
    if (begin >= candidate + size) break;
    candidate = AlignUp(end, alignment);
  }
  if (candidate + size > memory_size) return std::nullopt;
  return candidate;
}

}  // namespace mmapzero::validate
