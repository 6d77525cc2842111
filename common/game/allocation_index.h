// The fast-memory allocations of a game: rectangles of logical time x bytes,
// and the two queries the game asks of them: the lowest aligned offset free
// over a time interval, and whether a given byte range is free over one.
//
// A segment tree over time holds each rectangle at the O(log T) canonical
// nodes covering its interval. Every node keeps
//  - its own rectangles, sorted by offset (they all span the node's whole
//    range, so they are disjoint in bytes), and their union as merged spans;
//  - the union of the byte ranges of every rectangle in its subtree, as
//    sorted disjoint spans (a long time range merges into few spans).
// The bytes in use over a query interval are then the union of O(log T)
// sorted span lists: the subtree unions of the query's canonical nodes and
// the own unions of their ancestors. The lowest fit jumps a candidate offset
// past conflicts list by list (a binary search each) until no list objects:
// the cost depends on how fragmented the memory is near the query, not on
// how many rectangles overlap it, the program's length or the memory size.
// Nothing is a dense time x bytes grid.
//
// Rectangles are removed in LIFO order only (the game's undo): union edits
// are journaled and reverted exactly.
#ifndef MMAPZERO_COMMON_GAME_ALLOCATION_INDEX_H_
#define MMAPZERO_COMMON_GAME_ALLOCATION_INDEX_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace mmapzero::game {

struct Rect {
  int32_t start;   // first time step, inclusive
  int32_t end;     // last time step, inclusive
  int64_t offset;  // first byte
  int64_t size;    // bytes
  int32_t alias_group = -1;  // members of one group share their space
  int32_t tensor = -1;       // whose data it holds
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
  // Whether [offset, offset + size) is free over [start, end]. With an
  // `alias_group` (>= 0), rectangles that share the group's bytes do not
  // count: the group's own, and those at exactly these bytes of a tensor in
  // `group_tensors` (a tensor with a buffer in the group). An alias group
  // is one piece of memory, so its members may overlap each other in time:
  // an in-place update reads and writes the same bytes, and an operand kept
  // in place by NoCopy lends its tensor's allocation to the group.
  bool IsFree(int32_t start, int32_t end, int64_t offset, int64_t size,
              int32_t alias_group = -1,
              absl::Span<const int32_t> group_tensors = {}) const;

  // Calls fn(const Rect&) once for each rectangle overlapping [start, end].
  template <typename Fn>
  void ForEachOverlapping(int32_t start, int32_t end, Fn&& fn) const {
    VisitOverlapping(start, end, [&](const Item& item) {
      fn(rects_[item.id]);
      return true;
    });
  }

 private:
  // A node's own rectangle: its bytes inline, then what enumeration needs.
  struct Item {
    int64_t lo;  // offset
    int64_t hi;  // offset + size
    int32_t alias_group;
    int32_t id;
    int32_t start;  // the rectangle's first time step
    int32_t tensor;
  };
  struct Span {
    int64_t lo;
    int64_t hi;
  };
  using SpanList = std::vector<Span>;
  // One change to a span list, for undo: at `position`, one merged span
  // replaced `removed_count` spans kept in removed_pool_ from
  // `removed_begin`.
  struct UnionEdit {
    int32_t list;  // a node: its union_; node + 2 * leaves_: its own_union_
    int32_t position;
    int32_t removed_begin;
    int32_t removed_count;
  };
  // A sorted list of disjoint byte ranges, the unit a query works on.
  struct ListRef {
    const Span* data;
    int32_t size;
  };

  // Calls visit(const Item&) once for each rectangle overlapping
  // [start, end], until it returns false; returns false when stopped early.
  template <typename Visit>
  bool VisitOverlapping(int32_t start, int32_t end, Visit&& visit) const;
  template <typename Fn>
  void ForEachCanonicalNode(int32_t start, int32_t end, Fn&& fn) const;
  // Calls fn(node) for each strict ancestor of the canonical nodes of
  // [start, end], once each: the nodes on the two leaf-to-root paths whose
  // range is not inside [start, end].
  template <typename Fn>
  void ForEachCoveringAncestor(int32_t start, int32_t end, Fn&& fn) const;
  void UpdateCounts(int32_t start, int32_t end);
  SpanList& ListAt(int32_t list) {
    return list < 2 * leaves_ ? union_[list] : own_union_[list - 2 * leaves_];
  }
  void UnionAdd(int32_t list, int64_t lo, int64_t hi);
  void UnionUndo(const UnionEdit& edit);
  // Fills lists_ with the byte lists whose union is what [start, end] uses.
  void CollectLists(int32_t start, int32_t end) const;
  bool NodeInside(int32_t node, int32_t start, int32_t end) const;

  int32_t leaves_;  // power of two >= num_steps
  std::vector<std::vector<Item>> own_;  // per node, sorted by offset
  std::vector<SpanList> own_union_;     // per node, union of own_
  std::vector<SpanList> union_;         // per node, subtree union
  std::vector<int32_t> subtree_count_;    // rectangles placed in a subtree
  std::vector<Rect> rects_;
  std::vector<int32_t> rect_edits_begin_;  // per rect: its first UnionEdit
  std::vector<UnionEdit> edits_;
  std::vector<Span> removed_pool_;

  // Query scratch, reused to avoid allocation per move.
  mutable std::vector<int32_t> stack_;
  mutable std::vector<ListRef> lists_;
};

template <typename Visit>
inline bool AllocationIndex::VisitOverlapping(int32_t start, int32_t end,
                                              Visit&& visit) const {
  // Depth-first over nodes whose range meets [start, end] and whose subtree
  // holds something; a rect stored at such a node covers the node's range,
  // so it overlaps the query. A rect stored at several canonical nodes is
  // reported at the one holding the first step of its overlap with the
  // query, max(rect start, start).
  stack_.clear();
  stack_.push_back(1);
  while (!stack_.empty()) {
    const int32_t node = stack_.back();
    stack_.pop_back();
    if (subtree_count_[node] == 0) continue;
    const int32_t depth = 31 - __builtin_clz(static_cast<uint32_t>(node));
    const int32_t width = leaves_ >> depth;
    const int32_t first = (node - (1 << depth)) * width;
    for (const Item& item : own_[node]) {
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
