// The latency model L_t(S) of rules §6 and the derived buffer and
// instruction features of section 2, re-derived from the Workload proto alone.
// The validator and the latency simulator use it; the game engine keeps its
// own implementation on purpose, so that each checks the other.
//
// Per instruction t, by its latency model:
//  - none (static features only): L_t(S) = supply_t + sum of benefit_b over
//    the buffers b of t not in S, so L_t(all) = supply_t;
//  - roofline: L_t(S) = max(compute_t, sum_b size_b / bw(memory of b)), where
//    bytes / (GB/s * 1e3) is us and compute_t = flops / (TFLOP/s * 1e6) us
//    when flops > 0, else compute_us;
//  - measured: latency_us[mask of the listed buffers in S] minus the static
//    benefit_us of every unlisted buffer in S.
// Features when the proto leaves them out: demand_b = size_b / copy
// bandwidth, benefit_b = L_t({}) - L_t({b}), supply_t = L_t(all of t).
// Every figure here is per execution of its step; Repeat(t) says how often
// step t runs (rules §7), and callers weigh by it.
#ifndef MMAPZERO_COMMON_VALIDATE_REFERENCE_LATENCY_H_
#define MMAPZERO_COMMON_VALIDATE_REFERENCE_LATENCY_H_

#include <vector>

#include "absl/types/span.h"
#include "common/workload/loop_nest.h"
#include "proto/workload.pb.h"

namespace mmapzero::validate {

class ReferenceLatency {
 public:
  // `workload` must pass CheckWorkload (workload_check.h); nothing of it is
  // kept after construction.
  explicit ReferenceLatency(const Workload& workload);

  int num_steps() const { return static_cast<int>(supply_.size()); }
  int num_buffers() const { return static_cast<int>(demand_.size()); }

  // Ids of the buffers instruction t uses, ascending.
  absl::Span<const int> BuffersOf(int t) const { return buffers_of_[t]; }

  // L_t(S) for S = `fast`: ids of buffers in fast memory. Ids of buffers that
  // instruction t does not use are ignored; repeats count once.
  double Latency(int t, absl::Span<const int> fast) const;
  double AllSlow(int t) const { return all_slow_[t]; }  // L_t({})
  double AllFast(int t) const { return all_fast_[t]; }  // L_t(all of t)

  double Supply(int t) const { return supply_[t]; }    // us
  double Demand(int b) const { return demand_[b]; }    // us
  double Benefit(int b) const { return benefit_[b]; }  // us

  // The program's loops (rules §7): how often each step runs, and the run
  // of steps a copy for it stays inside.
  const LoopNest& loops() const { return loops_; }
  double Repeat(int t) const { return loops_.Repeat(t); }

 private:
  enum class Model { kStatic, kRoofline, kMeasured };

  // L_t(S) with S given as one flag per entry of BuffersOf(t).
  double LatencyOfMembership(int t, const std::vector<char>& in_fast) const;

  LoopNest loops_;
  std::vector<std::vector<int>> buffers_of_;
  std::vector<Model> model_;
  std::vector<double> compute_us_;                // roofline
  std::vector<std::vector<double>> measured_us_;  // measured, by mask
  std::vector<double> supply_;
  std::vector<double> all_slow_;
  std::vector<double> all_fast_;
  std::vector<int> target_;        // by buffer
  std::vector<int> position_;      // index in BuffersOf(target)
  std::vector<int> measured_bit_;  // bit in its table, or -1
  std::vector<double> slow_us_;    // size / slow bandwidth
  std::vector<double> fast_us_;    // size / fast bandwidth
  std::vector<double> demand_;
  std::vector<double> benefit_;
  std::vector<double> given_benefit_;  // benefit_us as given, else 0
};

}  // namespace mmapzero::validate

#endif  // MMAPZERO_COMMON_VALIDATE_REFERENCE_LATENCY_H_
