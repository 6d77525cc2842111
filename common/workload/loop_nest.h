// The loop structure of a workload (rules §7), per step: how often the step
// runs (its repeat, the product of the trip counts of the loops around it)
// and the run of steps around it that share its loops. A copy lies inside
// the run of the step it serves, so a transfer placed inside a loop's body
// runs once per trip and never crosses the loop's boundary.
//
// Derived from Workload.loops alone; the engine, the validator and the
// latency simulator read it, each applying the rules their own way.
#ifndef MMAPZERO_COMMON_WORKLOAD_LOOP_NEST_H_
#define MMAPZERO_COMMON_WORKLOAD_LOOP_NEST_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "proto/workload.pb.h"

namespace mmapzero {

class LoopNest {
 public:
  // `workload.loops` must pass CheckLoops.
  explicit LoopNest(const Workload& workload);

  int num_steps() const { return static_cast<int>(repeat_.size()); }
  bool has_loops() const { return has_loops_; }
  // Executions of step t per run of the program; 1 outside every loop.
  double Repeat(int t) const { return repeat_[t]; }
  // The first and last step of the largest range around t whose steps are
  // inside exactly the loops t is inside: no loop starts or ends within it.
  int RunStart(int t) const { return run_start_[t]; }
  int RunEnd(int t) const { return run_end_[t]; }
  // The innermost loop holding t (an index into Workload.loops), or -1.
  int InnermostLoop(int t) const { return innermost_[t]; }

 private:
  bool has_loops_ = false;
  std::vector<double> repeat_;
  std::vector<int> run_start_;
  std::vector<int> run_end_;
  std::vector<int> innermost_;
};

// OK, or InvalidArgument naming the loop, field and value: a trip count in
// [1, kMaxTripCount], steps inside the program with first <= last, any two
// loops disjoint or one inside the other, and no step repeated more than
// kMaxRepeat times.
absl::Status CheckLoops(const Workload& workload);

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_WORKLOAD_LOOP_NEST_H_
