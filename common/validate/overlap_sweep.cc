#include "common/validate/overlap_sweep.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <queue>
#include <utility>

namespace mmapzero::validate {
namespace {

// The allocations holding memory at the sweep's current step. `clean_`
// keeps those that met no overlap, by offset: any two of them are either
// disjoint in bytes or the same bytes of one alias group, so their end
// bytes rise with their offsets and a backward walk from the new range's end
// can stop at the first one that ends below its start. Allocations that did
// overlap go to `conflicted_`, scanned in full (few in any useful solution).
class ActiveSet {
 public:
  ActiveSet(absl::Span<const Allocation> allocations,
            const AliasTensors& alias_tensors)
      : allocations_(allocations),
        alias_tensors_(alias_tensors),
        clean_position_(allocations.size()) {}

  // Drops the allocations whose last step is before `step`.
  void ExpireBefore(int step) {
    while (!expiry_.empty() && expiry_.top().first < step) {
      clean_.erase(clean_position_[expiry_.top().second]);
      expiry_.pop();
    }
    std::erase_if(conflicted_, [&](int index) {
      return allocations_[index].last_step < step;
    });
  }

  // An active allocation that overlaps allocation `index`, or -1.
  int FindConflict(int index) const {
    const Allocation& entering = allocations_[index];
    auto it = clean_.lower_bound(entering.end_byte());
    while (it != clean_.begin()) {
      --it;
      const Allocation& active = allocations_[it->second];
      if (active.end_byte() <= entering.offset) break;
      if (!SharedByAliasGroup(active, entering, alias_tensors_)) return it->second;
    }
    for (int other : conflicted_) {
      const Allocation& active = allocations_[other];
      if (OverlapInBytes(active, entering.offset, entering.size) &&
          !SharedByAliasGroup(active, entering, alias_tensors_)) {
        return other;
      }
    }
    return -1;
  }

  void Insert(int index, bool conflicted) {
    if (conflicted) {
      conflicted_.push_back(index);
      return;
    }
    clean_position_[index] = clean_.emplace(allocations_[index].offset, index);
    expiry_.emplace(allocations_[index].last_step, index);
  }

 private:
  using Clean = std::multimap<int64_t, int>;
  absl::Span<const Allocation> allocations_;
  const AliasTensors& alias_tensors_;
  Clean clean_;
  std::vector<Clean::iterator> clean_position_;
  std::priority_queue<std::pair<int, int>, std::vector<std::pair<int, int>>,
                      std::greater<>>
      expiry_;  // (last step, index), earliest first
  std::vector<int> conflicted_;
};

}  // namespace

std::vector<AllocationOverlap> FindOverlaps(
    absl::Span<const Allocation> allocations,
    const AliasTensors& alias_tensors) {
  std::vector<int> order(allocations.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return allocations[a].first_step < allocations[b].first_step;
  });
  ActiveSet active(allocations, alias_tensors);
  std::vector<AllocationOverlap> overlaps;
  for (int index : order) {
    active.ExpireBefore(allocations[index].first_step);
    const int other = active.FindConflict(index);
    if (other >= 0) overlaps.push_back({index, other});
    active.Insert(index, other >= 0);
  }
  return overlaps;
}

}  // namespace mmapzero::validate
