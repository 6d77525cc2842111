#include "common/solvers/heuristic/capacity_profile.h"

#include <algorithm>
#include <limits>

namespace mmapzero::solvers {

CapacityProfile::CapacityProfile(int32_t num_steps, int64_t capacity)
    : num_steps_(std::max(num_steps, 1)), capacity_(capacity) {
  max_.assign(4 * static_cast<size_t>(num_steps_), 0);
  add_.assign(4 * static_cast<size_t>(num_steps_), 0);
}

bool CapacityProfile::Fits(int32_t first, int32_t last, int64_t bytes) const {
  if (first > last) return true;
  return Peak(first, last) + bytes <= capacity_;
}

void CapacityProfile::Add(int32_t first, int32_t last, int64_t bytes) {
  first = std::max(first, 0);
  last = std::min(last, num_steps_ - 1);
  if (first > last) return;
  Add(1, 0, num_steps_ - 1, first, last, bytes);
}

int64_t CapacityProfile::Peak(int32_t first, int32_t last) const {
  first = std::max(first, 0);
  last = std::min(last, num_steps_ - 1);
  if (first > last) return 0;
  return Peak(1, 0, num_steps_ - 1, first, last);
}

void CapacityProfile::Add(int node, int32_t lo, int32_t hi, int32_t first,
                          int32_t last, int64_t bytes) {
  if (last < lo || hi < first) return;
  if (first <= lo && hi <= last) {
    add_[node] += bytes;
    max_[node] += bytes;
    return;
  }
  const int32_t mid = lo + (hi - lo) / 2;
  Add(2 * node, lo, mid, first, last, bytes);
  Add(2 * node + 1, mid + 1, hi, first, last, bytes);
  max_[node] = add_[node] + std::max(max_[2 * node], max_[2 * node + 1]);
}

int64_t CapacityProfile::Peak(int node, int32_t lo, int32_t hi, int32_t first,
                              int32_t last) const {
  if (last < lo || hi < first) return std::numeric_limits<int64_t>::min() / 4;
  if (first <= lo && hi <= last) return max_[node];
  const int32_t mid = lo + (hi - lo) / 2;
  return add_[node] + std::max(Peak(2 * node, lo, mid, first, last),
                               Peak(2 * node + 1, mid + 1, hi, first, last));
}

}  // namespace mmapzero::solvers
