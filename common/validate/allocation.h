// One fast-memory allocation as the validator sees it: a rectangle of
// logical time steps x bytes, held for one buffer.
#ifndef MMAPZERO_COMMON_VALIDATE_ALLOCATION_H_
#define MMAPZERO_COMMON_VALIDATE_ALLOCATION_H_

#include <cstdint>
#include <utility>

#include "absl/container/flat_hash_set.h"

namespace mmapzero::validate {

struct Allocation {
  int buffer_id = -1;
  int first_step = 0;  // inclusive
  int last_step = 0;   // inclusive
  int64_t offset = 0;  // bytes
  int64_t size = 0;    // bytes
  int alias_id = -1;   // alias group, -1 for none
  int tensor_id = -1;

  int64_t end_byte() const { return offset + size; }
};

inline bool OverlapInTime(const Allocation& a, int first, int last) {
  return a.first_step <= last && first <= a.last_step;
}

inline bool OverlapInBytes(const Allocation& a, int64_t offset, int64_t size) {
  return a.offset < offset + size && offset < a.end_byte();
}

// The (alias group, tensor) pairs of a workload: which tensors have a
// buffer in which group.
using AliasTensors = absl::flat_hash_set<std::pair<int, int>>;

// Members of one alias group share one allocation (rules §4.4): rectangles of
// the same group at the same bytes may overlap in time, and so may a group
// member's rectangle and any rectangle, at the same bytes, of a tensor that
// has a buffer in the group (an operand kept in place by NoCopy lends its
// tensor's allocation to the group). Without this an in-place update
// (operand and output of one instruction aliased, both holding the
// instruction's step) could never be fast.
inline bool SharedByAliasGroup(const Allocation& a, const Allocation& b,
                               const AliasTensors& alias_tensors) {
  if (a.offset != b.offset || a.size != b.size) return false;
  if (a.alias_id >= 0 && a.alias_id == b.alias_id) return true;
  return (a.alias_id >= 0 && alias_tensors.contains({a.alias_id, b.tensor_id})) ||
         (b.alias_id >= 0 && alias_tensors.contains({b.alias_id, a.tensor_id}));
}

}  // namespace mmapzero::validate

#endif  // MMAPZERO_COMMON_VALIDATE_ALLOCATION_H_
