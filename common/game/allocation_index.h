// The fast-memory allocations of a game: rectangles of logical time x bytes,
// and the two queries the game asks of them: the lowest aligned offset free
// over a time interval, and whether a given byte range is free over one.
//
// A segment tree over time holds each rectangle at the O(log T) canonical
// nodes covering its interval, with per-subtree counts so empty subtrees
// are skipped. A query costs O(log T + k log k) for the k rectangles that
// overlap its interval: neither the program's length nor the memory size
// enter it, and nothing is a dense time x bytes grid. Rectangles are removed
// in LIFO order only (the game's undo), which keeps removal O(log T).
#ifndef MMAPZERO_COMMON_GAME_ALLOCATION_INDEX_H_
#define MMAPZERO_COMMON_GAME_ALLOCATION_INDEX_H_

#include <cstdint>
#include <vector>

#include <algorithm>

#include "absl/types/span.h"

namespace mmapzero::game {

struct Rect {
  int32_t start;   // first time step, inclusive
  int32_t end;     // last time step, inclusive
  int64_t offset;  // first byte
  int64_t size;    // bytes
  int32_t alias_group = -1;  // members of one group share their space
};

class AllocationIndex {
 public:
  explicit AllocationIndex(int32_t num_steps);

  // Adds a rectangle (start <= end); returns its id, ids count up from 0.
  int32_t Insert(const Rect& rect);
  // Removes the most recently inserted rectangle.
  void RemoveLast();
  int32_t size() const { return static_cast<int32_t>(rects_.size()); }
  const Rect& rect(int32_t id) const { return rects_[id]; }
  absl::Span<const Rect> rects() const { return rects_; }

  // The lowest offset, a multiple of `alignment`, such that
  // [offset, offset + size) lies within [0, limit) and is free over
  // [start, end]; -1 when there is none.
  int64_t LowestFit(int32_t start, int32_t end, int64_t size,
                    int64_t alignment, int64_t limit) const;
  // Whether [offset, offset + size) is free over [start, end], ignoring
  // rectangles of `alias_group` (>= 0): the members of an alias group are one
  // piece of memory, so they may overlap each other in time (an in-place
  // update reads and writes the same bytes).
  bool IsFree(int32_t start, int32_t end, int64_t offset, int64_t size,
              int32_t alias_group = -1) const;

  // Calls fn(const Rect&) once for each rectangle overlapping [start, end].
  template <typename Fn>
  void ForEachOverlapping(int32_t start, int32_t end, Fn&& fn) const {
    VisitOverlapping(start, end, [&](const Item& item) {
      fn(rects_[item.id]);
      return true;
    });
  }

 private:
  // Calls visit(const Item&) once for each rectangle overlapping
  // [start, end], until it returns false; returns false when stopped early.
  template <typename Visit>
  bool VisitOverlapping(int32_t start, int32_t end, Visit&& visit) const;
  // Adds `delta` placements at `node` and fixes the counts up to the root.
  void UpdateCounts(int32_t start, int32_t end);
  template <typename Fn>
  void ForEachCanonicalNode(int32_t start, int32_t end, Fn&& fn);

  // What a node keeps of each rectangle stored at it: its bytes inline,
  // so a query reads one contiguous array per node.
  struct Item {
    int64_t offset;
    int64_t end;  // offset + size
    int32_t alias_group;
    int32_t id;
    int32_t start;  // the rectangle's first time step
  };

  int32_t leaves_;                          // power of two >= num_steps
  std::vector<std::vector<Item>> node_items_;  // rectangles stored at a node
  std::vector<int32_t> subtree_count_;          // placements in a subtree
  std::vector<Rect> rects_;

  // Query scratch, reused to avoid allocation per move.
  mutable std::vector<int32_t> stack_;
  mutable std::vector<std::pair<int64_t, int64_t>> ranges_;
  mutable std::vector<std::pair<int64_t, int64_t>> sorted_ranges_;
  mutable std::vector<int32_t> bucket_starts_;
};

template <typename Visit>
inline bool AllocationIndex::VisitOverlapping(int32_t start, int32_t end,
                                       Visit&& visit) const {
  // Depth-first over nodes whose range meets [start, end] and whose subtree
  // holds something; a rect stored at such a node covers the node's range,
  // so it overlaps the query: no rect is looked at that does not. A rect
  // stored at several canonical nodes is reported at the one holding the
  // first step of its overlap with the query, max(rect start, start).
  stack_.clear();
  stack_.push_back(1);
  while (!stack_.empty()) {
    const int32_t node = stack_.back();
    stack_.pop_back();
    if (subtree_count_[node] == 0) continue;
    // The node's range: `width` leaves from `first`; the right child
    // starts at `mid`.
    const int32_t depth = 31 - __builtin_clz(static_cast<uint32_t>(node));
    const int32_t width = leaves_ >> depth;
    const int32_t first = (node - (1 << depth)) * width;
    for (const Item& item : node_items_[node]) {
      if (std::max(item.start, start) < first) continue;  // reported elsewhere
      if (!visit(item)) return false;
    }
    if (node >= leaves_) continue;
    const int32_t mid = first + width / 2;
    if (start < mid) stack_.push_back(2 * node);
    if (end >= mid) stack_.push_back(2 * node + 1);
  }
  return true;
}

}  // namespace mmapzero::game

#endif  // MMAPZERO_COMMON_GAME_ALLOCATION_INDEX_H_
