#include "common/game/allocation_index.h"

#include <algorithm>

namespace mmapzero::game {
namespace {

int64_t AlignUp(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

}  // namespace

AllocationIndex::AllocationIndex(int32_t num_steps) : leaves_(1) {
  while (leaves_ < num_steps) leaves_ *= 2;
  node_ids_.resize(2 * leaves_);
  subtree_count_.assign(2 * leaves_, 0);
}

template <typename Fn>
void AllocationIndex::ForEachCanonicalNode(int32_t start, int32_t end, Fn&& fn) {
  int32_t lo = start + leaves_, hi = end + leaves_ + 1;
  while (lo < hi) {
    if (lo & 1) fn(lo++);
    if (hi & 1) fn(--hi);
    lo >>= 1;
    hi >>= 1;
  }
}

// The canonical nodes of [start, end] hang off the two paths from the leaves
// `start` and `end` to the root: recount those paths bottom-up.
void AllocationIndex::UpdateCounts(int32_t start, int32_t end) {
  for (int32_t leaf : {start + leaves_, end + leaves_}) {
    for (int32_t node = leaf; node >= 1; node >>= 1) {
      int32_t count = static_cast<int32_t>(node_ids_[node].size());
      if (node < leaves_) {
        count += subtree_count_[2 * node] + subtree_count_[2 * node + 1];
      }
      subtree_count_[node] = count;
    }
  }
}

int32_t AllocationIndex::Insert(const Rect& rect) {
  const int32_t id = static_cast<int32_t>(rects_.size());
  rects_.push_back(rect);
  seen_epoch_.push_back(0);
  ForEachCanonicalNode(rect.start, rect.end, [&](int32_t node) {
    node_ids_[node].push_back(id);
    // Off-path canonical nodes only gain their own placement.
    ++subtree_count_[node];
  });
  UpdateCounts(rect.start, rect.end);
  return id;
}

void AllocationIndex::RemoveLast() {
  const Rect rect = rects_.back();
  ForEachCanonicalNode(rect.start, rect.end, [&](int32_t node) {
    node_ids_[node].pop_back();
    --subtree_count_[node];
  });
  UpdateCounts(rect.start, rect.end);
  rects_.pop_back();
  seen_epoch_.pop_back();
}

void AllocationIndex::CollectOverlapping(int32_t start, int32_t end) const {
  scratch_ids_.clear();
  if (++epoch_ == 0) {  // wrapped: forget every mark
    std::fill(seen_epoch_.begin(), seen_epoch_.end(), 0);
    epoch_ = 1;
  }
  // Depth-first over nodes whose range meets [start, end] and whose subtree
  // holds something; a rect stored at such a node covers the node's range,
  // so it overlaps the query.
  stack_.clear();
  stack_.push_back(1);
  const int32_t lo_leaf = start, hi_leaf = end;
  while (!stack_.empty()) {
    const int32_t node = stack_.back();
    stack_.pop_back();
    if (subtree_count_[node] == 0) continue;
    for (int32_t id : node_ids_[node]) {
      if (seen_epoch_[id] != epoch_) {
        seen_epoch_[id] = epoch_;
        scratch_ids_.push_back(id);
      }
    }
    if (node >= leaves_) continue;
    // Node range from its depth: width = leaves_ >> depth.
    const int32_t depth = 31 - __builtin_clz(static_cast<uint32_t>(node));
    const int32_t half = (leaves_ >> depth) / 2;
    const int32_t left_lo = (node - (1 << depth)) * (leaves_ >> depth);
    const int32_t mid = left_lo + half;  // right child starts here
    if (lo_leaf < mid) stack_.push_back(2 * node);
    if (hi_leaf >= mid) stack_.push_back(2 * node + 1);
  }
}

int64_t AllocationIndex::LowestFit(int32_t start, int32_t end, int64_t size,
                                   int64_t alignment, int64_t limit) const {
  if (size > limit) return -1;
  CollectOverlapping(start, end);
  ranges_.clear();
  for (int32_t id : scratch_ids_) {
    ranges_.emplace_back(rects_[id].offset, rects_[id].offset + rects_[id].size);
  }
  std::sort(ranges_.begin(), ranges_.end());
  int64_t candidate = 0;
  for (const auto& [lo, hi] : ranges_) {
    if (candidate + size <= lo) break;
    if (hi > candidate) candidate = AlignUp(hi, alignment);
  }
  return candidate + size <= limit ? candidate : -1;
}

bool AllocationIndex::IsFree(int32_t start, int32_t end, int64_t offset,
                             int64_t size, int32_t alias_group) const {
  CollectOverlapping(start, end);
  for (int32_t id : scratch_ids_) {
    const Rect& r = rects_[id];
    if (alias_group >= 0 && r.alias_group == alias_group) continue;
    if (r.offset < offset + size && offset < r.offset + r.size) return false;
  }
  return true;
}

}  // namespace mmapzero::game
