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
    CollectOverlapping(start, end);
    for (int32_t id : scratch_ids_) fn(rects_[id]);
  }

 private:
  // Fills scratch_ids_ with the ids overlapping [start, end], each once.
  void CollectOverlapping(int32_t start, int32_t end) const;
  // Adds `delta` placements at `node` and fixes the counts up to the root.
  void UpdateCounts(int32_t start, int32_t end);
  template <typename Fn>
  void ForEachCanonicalNode(int32_t start, int32_t end, Fn&& fn);

  int32_t leaves_;                              // power of two >= num_steps
  std::vector<std::vector<int32_t>> node_ids_;  // rect ids stored at a node
  std::vector<int32_t> subtree_count_;          // placements in a subtree
  std::vector<Rect> rects_;

  // Query scratch, reused to avoid allocation per move.
  mutable std::vector<int32_t> scratch_ids_;
  mutable std::vector<uint32_t> seen_epoch_;
  mutable uint32_t epoch_ = 0;
  mutable std::vector<int32_t> stack_;
  mutable std::vector<std::pair<int64_t, int64_t>> ranges_;
};

}  // namespace mmapzero::game

#endif  // MMAPZERO_COMMON_GAME_ALLOCATION_INDEX_H_
