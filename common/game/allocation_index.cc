#include "common/game/allocation_index.h"

#include <algorithm>

namespace mmapzero::game {
namespace {

// `value` is an allocation's end, at most memory_size + size <= 2^49, and
// `alignment` at most memory_size (CheckWorkload, workload_limits.h): no
// overflow. Unbounded, an alignment near 2^62 wrapped this negative and the
// search below never ended.
int64_t AlignUp(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// The first element of a sorted list of disjoint ranges that ends after
// `offset`, or data + size.
template <typename T>
const T* FirstEndingAfter(const T* data, int32_t size, int64_t offset) {
  return std::upper_bound(
      data, data + size, offset,
      [](int64_t value, const T& range) { return value < range.hi; });
}

// Whether a sorted list of disjoint ranges holds one meeting [lo, hi).
template <typename T>
bool Touches(const T* data, int32_t size, int64_t lo, int64_t hi) {
  const T* hit = FirstEndingAfter(data, size, lo);
  return hit != data + size && hit->lo < hi;
}

}  // namespace

AllocationIndex::AllocationIndex(int32_t num_steps) : leaves_(1) {
  while (leaves_ < num_steps) leaves_ *= 2;
  own_.resize(2 * leaves_);
  own_union_.resize(2 * leaves_);
  union_.resize(2 * leaves_);
  subtree_count_.assign(2 * leaves_, 0);
}

bool AllocationIndex::NodeInside(int32_t node, int32_t start, int32_t end) const {
  const int32_t depth = 31 - __builtin_clz(static_cast<uint32_t>(node));
  const int32_t width = leaves_ >> depth;
  const int32_t first = (node - (1 << depth)) * width;
  return start <= first && first + width - 1 <= end;
}

template <typename Fn>
void AllocationIndex::ForEachCanonicalNode(int32_t start, int32_t end,
                                           Fn&& fn) const {
  int32_t lo = start + leaves_, hi = end + leaves_ + 1;
  while (lo < hi) {
    if (lo & 1) fn(lo++);
    if (hi & 1) fn(--hi);
    lo >>= 1;
    hi >>= 1;
  }
}

template <typename Fn>
void AllocationIndex::ForEachCoveringAncestor(int32_t start, int32_t end,
                                              Fn&& fn) const {
  // Walk both leaf-to-root paths level by level; once they meet they are
  // one path, visited once.
  for (int32_t a = start + leaves_, b = end + leaves_; a >= 1; a >>= 1, b >>= 1) {
    if (!NodeInside(a, start, end)) fn(a);
    if (b != a && !NodeInside(b, start, end)) fn(b);
  }
}

// The canonical nodes of [start, end] hang off the two paths from the leaves
// `start` and `end` to the root: recount those paths bottom-up.
void AllocationIndex::UpdateCounts(int32_t start, int32_t end) {
  for (int32_t leaf : {start + leaves_, end + leaves_}) {
    for (int32_t node = leaf; node >= 1; node >>= 1) {
      int32_t count = static_cast<int32_t>(own_[node].size());
      if (node < leaves_) {
        count += subtree_count_[2 * node] + subtree_count_[2 * node + 1];
      }
      subtree_count_[node] = count;
    }
  }
}

void AllocationIndex::UnionAdd(int32_t list, int64_t lo, int64_t hi) {
  SpanList& spans = ListAt(list);
  // Spans that overlap or touch [lo, hi) merge with it.
  auto first = std::lower_bound(
      spans.begin(), spans.end(), lo,
      [](const Span& span, int64_t value) { return span.hi < value; });
  auto last = first;
  while (last != spans.end() && last->lo <= hi) ++last;
  const int32_t position = static_cast<int32_t>(first - spans.begin());
  const int32_t count = static_cast<int32_t>(last - first);
  edits_.push_back({list, position, static_cast<int32_t>(removed_pool_.size()),
                    count});
  removed_pool_.insert(removed_pool_.end(), first, last);
  if (count == 0) {
    spans.insert(first, Span{lo, hi});
    return;
  }
  const Span merged{std::min(lo, first->lo), std::max(hi, (last - 1)->hi)};
  *first = merged;
  spans.erase(first + 1, last);
}

void AllocationIndex::UnionUndo(const UnionEdit& edit) {
  SpanList& spans = ListAt(edit.list);
  auto at = spans.begin() + edit.position;
  if (edit.removed_count == 0) {
    spans.erase(at);
  } else {
    const auto removed = removed_pool_.begin() + edit.removed_begin;
    *at = *removed;
    spans.insert(at + 1, removed + 1, removed + edit.removed_count);
  }
  removed_pool_.resize(edit.removed_begin);
}

int32_t AllocationIndex::Insert(const Rect& rect) {
  const int32_t id = static_cast<int32_t>(rects_.size());
  rects_.push_back(rect);
  rect_edits_begin_.push_back(static_cast<int32_t>(edits_.size()));
  const Item item{rect.offset, rect.offset + rect.size, rect.alias_group, id,
                  rect.start, rect.tensor};
  ForEachCanonicalNode(rect.start, rect.end, [&](int32_t node) {
    std::vector<Item>& items = own_[node];
    items.insert(std::upper_bound(items.begin(), items.end(), item.lo,
                                  [](int64_t lo, const Item& other) {
                                    return lo < other.lo;
                                  }),
                 item);
    ++subtree_count_[node];  // off-path nodes only gain their own placement
    UnionAdd(node + 2 * leaves_, item.lo, item.hi);
    UnionAdd(node, item.lo, item.hi);
  });
  ForEachCoveringAncestor(rect.start, rect.end,
                          [&](int32_t node) { UnionAdd(node, item.lo, item.hi); });
  UpdateCounts(rect.start, rect.end);
  return id;
}

void AllocationIndex::RemoveLast() {
  const Rect rect = rects_.back();
  const int32_t id = size() - 1;
  while (static_cast<int32_t>(edits_.size()) > rect_edits_begin_.back()) {
    UnionUndo(edits_.back());
    edits_.pop_back();
  }
  rect_edits_begin_.pop_back();
  ForEachCanonicalNode(rect.start, rect.end, [&](int32_t node) {
    std::vector<Item>& items = own_[node];
    auto it = std::lower_bound(
        items.begin(), items.end(), rect.offset,
        [](const Item& other, int64_t lo) { return other.lo < lo; });
    while (it->id != id) ++it;  // alias twins share an offset
    items.erase(it);
    --subtree_count_[node];
  });
  UpdateCounts(rect.start, rect.end);
  rects_.pop_back();
}

void AllocationIndex::CollectLists(int32_t start, int32_t end) const {
  lists_.clear();
  auto add = [&](const SpanList& spans) {
    if (!spans.empty()) {
      lists_.push_back({spans.data(), static_cast<int32_t>(spans.size())});
    }
  };
  ForEachCanonicalNode(start, end, [&](int32_t node) { add(union_[node]); });
  ForEachCoveringAncestor(start, end,
                          [&](int32_t node) { add(own_union_[node]); });
}

int64_t AllocationIndex::LowestFit(int32_t start, int32_t end, int64_t size,
                                   int64_t alignment, int64_t limit) const {
  if (size > limit) return -1;
  CollectLists(start, end);
  const int32_t num_lists = static_cast<int32_t>(lists_.size());
  int64_t candidate = 0;
  // Round-robin over the lists, pushing the candidate past every range that
  // collides with it, until all lists in a row accept it.
  for (int32_t index = 0, accepted = 0; accepted < num_lists;
       index = index + 1 == num_lists ? 0 : index + 1) {
    const ListRef& list = lists_[index];
    bool moved = false;
    const Span* hit = FirstEndingAfter(list.data, list.size, candidate);
    // Spans are sorted and disjoint: walk on from the first hit.
    for (const Span* stop = list.data + list.size;
         hit != stop && hit->lo < candidate + size; ++hit) {
      candidate = AlignUp(hit->hi, alignment);
      moved = true;
    }
    if (candidate + size > limit) return -1;
    accepted = moved ? 1 : accepted + 1;
  }
  return candidate;
}

bool AllocationIndex::IsFree(int32_t start, int32_t end, int64_t offset,
                             int64_t size, int32_t alias_group,
                             absl::Span<const int32_t> group_tensors) const {
  const int64_t stop = offset + size;
  if (alias_group < 0) {
    CollectLists(start, end);
    for (const ListRef& list : lists_) {
      if (Touches(list.data, list.size, offset, stop)) return false;
    }
    return true;
  }
  // The unions do not tell the group's rectangles from the others, so look
  // at rectangles, descending only into subtrees whose union touches
  // [offset, offset + size).
  stack_.clear();
  stack_.push_back(1);
  while (!stack_.empty()) {
    const int32_t node = stack_.back();
    stack_.pop_back();
    const SpanList& subtree = union_[node];
    if (!Touches(subtree.data(), static_cast<int32_t>(subtree.size()), offset,
                 stop)) {
      continue;
    }
    const std::vector<Item>& items = own_[node];
    const Item* last = items.data() + items.size();
    for (const Item* item = FirstEndingAfter(
             items.data(), static_cast<int32_t>(items.size()), offset);
         item != last && item->lo < stop; ++item) {
      if (item->alias_group == alias_group) continue;
      const bool same_bytes = item->lo == offset && item->hi == stop;
      if (!same_bytes || std::find(group_tensors.begin(), group_tensors.end(),
                                   item->tensor) == group_tensors.end()) {
        return false;
      }
    }
    if (node >= leaves_) continue;
    const int32_t depth = 31 - __builtin_clz(static_cast<uint32_t>(node));
    const int32_t width = leaves_ >> depth;
    const int32_t mid = (node - (1 << depth)) * width + width / 2;
    if (start < mid) stack_.push_back(2 * node);
    if (end >= mid) stack_.push_back(2 * node + 1);
  }
  return true;
}

}  // namespace mmapzero::game
