// The heuristic's own model of fast-memory occupancy: bytes reserved per
// logical time step, against a capacity. It ignores fragmentation (the
// engine places offsets by lowest fit when the plan is played), which the
// planner absorbs with a capacity fraction below 1 when asked to. A segment
// tree with range add and range max makes both operations O(log T).
#ifndef MMAPZERO_COMMON_SOLVERS_HEURISTIC_CAPACITY_PROFILE_H_
#define MMAPZERO_COMMON_SOLVERS_HEURISTIC_CAPACITY_PROFILE_H_

#include <cstdint>
#include <vector>

namespace mmapzero::solvers {

class CapacityProfile {
 public:
  CapacityProfile(int32_t num_steps, int64_t capacity);

  int64_t capacity() const { return capacity_; }
  // Whether `bytes` more fit at every step of [first, last] (true if empty).
  bool Fits(int32_t first, int32_t last, int64_t bytes) const;
  // Adds `bytes` (negative to release) at every step of [first, last].
  void Add(int32_t first, int32_t last, int64_t bytes);
  // Most bytes reserved at any step of [first, last].
  int64_t Peak(int32_t first, int32_t last) const;

 private:
  void Add(int node, int32_t lo, int32_t hi, int32_t first, int32_t last,
           int64_t bytes);
  int64_t Peak(int node, int32_t lo, int32_t hi, int32_t first,
               int32_t last) const;

  int32_t num_steps_;
  int64_t capacity_;
  std::vector<int64_t> max_;  // max over the node's range, own adds included
  std::vector<int64_t> add_;  // added to the node's whole range
};

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_HEURISTIC_CAPACITY_PROFILE_H_
