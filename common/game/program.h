// A workload compiled for play: flat arrays indexed by buffer id, the
// decision order, dense tensor and alias-group indices, and every latency
// model reduced to O(1) per-buffer updates. Immutable once built and shared
// (by shared_ptr<const Program>) by every game and clone of one workload.
//
// Derived features follow docs/game-engine.md: demand = size / copy
// bandwidth, benefit = L_t({}) - L_t({b}), supply = L_t(all buffers of t).
// Loops (rules §7): every latency, benefit and reward here is over the
// whole run, i.e. times the step's repeat; supply and demand stay per
// execution of their step, since a copy inside a loop runs on every trip.
#ifndef MMAPZERO_COMMON_GAME_PROGRAM_H_
#define MMAPZERO_COMMON_GAME_PROGRAM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "proto/workload.pb.h"

namespace mmapzero::game {

// How one instruction's latency responds to its buffers being in fast memory.
enum class LatencyKind : uint8_t {
  kStatic,    // L(S) = supply + sum of benefits of buffers not in S
  kRoofline,  // L(S) = max(compute, sum of size / bandwidth of its memory)
  kMeasured,  // table over <= 8 buffers; the others use static benefit
};

// The mutable part of an instruction's latency: enough to evaluate L_t(S)
// in O(1) and to update it when one buffer moves to fast memory.
struct LatencyState {
  double memory_us = 0;     // roofline: sum of size/bw over its buffers
  double static_saved = 0;  // static and unlisted measured buffers: benefits
  uint32_t mask = 0;        // measured: listed buffers in fast memory
};

struct BufferInfo {
  int64_t size = 0;
  int32_t target_time = 0;
  int32_t tensor = 0;        // dense tensor index
  int32_t alias_group = -1;  // dense alias-group index, -1 = none
  int32_t live_start = 0;
  int32_t live_end = 0;
  bool is_output = false;
  int8_t measured_slot = -1;  // bit in the instruction's measured table
  double demand_us = 0;        // per copy
  double benefit_us = 0;       // L_t({}) - L_t({b}), times t's repeat
  double fast_delta_us = 0;    // roofline: memory_us change when made fast
};

// Latencies are per run of the program: one execution's times repeat.
struct InstructionInfo {
  LatencyKind kind = LatencyKind::kStatic;
  double compute_us = 0;
  double supply_us = 0;         // per execution of the step
  double repeat = 1;            // executions per run (rules §7)
  int32_t run_start = 0;        // copies for this step stay inside
  int32_t run_end = 0;          //   [run_start, run_end] (rules §7)
  double empty_latency_us = 0;  // L_t({})
  double full_latency_us = 0;   // L_t(all buffers of t)
  int32_t table_begin = 0;      // measured: index into Program::table_us
  LatencyState initial;         // all buffers in slow memory
};

class Program {
 public:
  // Checks the workload (CheckWorkload) and compiles it.
  static absl::StatusOr<std::shared_ptr<const Program>> Create(
      const Workload& workload);

  int32_t num_steps() const { return static_cast<int32_t>(instructions_.size()); }
  int32_t num_buffers() const { return static_cast<int32_t>(buffers_.size()); }
  int32_t num_tensors() const { return num_tensors_; }
  int32_t num_alias_groups() const {
    return static_cast<int32_t>(alias_group_sizes_.size());
  }
  int64_t memory_size() const { return memory_size_; }
  // The workload this program was compiled from (checked), for what needs
  // the proto itself: the latency simulator, the validator.
  const Workload& source() const { return *source_; }
  int64_t alignment() const { return alignment_; }
  const std::string& name() const { return name_; }

  const BufferInfo& buffer(int32_t id) const { return buffers_[id]; }
  const InstructionInfo& instruction(int32_t t) const { return instructions_[t]; }
  // Buffer ids in decision order: (target_time, operands first, id).
  const std::vector<int32_t>& decision_order() const { return order_; }
  // Number of members of each alias group.
  int32_t alias_group_size(int32_t group) const { return alias_group_sizes_[group]; }
  // The tensors (dense) with a buffer in each alias group; empty for -1.
  absl::Span<const int32_t> alias_group_tensors(int32_t group) const {
    if (group < 0) return {};
    return alias_group_tensors_[group];
  }
  // Workload tensor_id / alias_id of a dense index, for output.
  int32_t tensor_id(int32_t tensor) const { return tensor_ids_[tensor]; }

  // L_t under `state`, over the whole run (times t's repeat).
  double Latency(int32_t t, const LatencyState& state) const;
  bool has_loops() const { return has_loops_; }
  // `state` after buffer `id` (of instruction t) moves to fast memory.
  LatencyState WithFast(const LatencyState& state, int32_t id) const;

  double empty_latency_us() const { return empty_latency_us_; }  // sum L_t({})
  double full_latency_us() const { return full_latency_us_; }    // sum L_t(all)
  // sum_t L_t({}) - L_t(all): the normalised return's denominator.
  double max_return_us() const { return empty_latency_us_ - full_latency_us_; }

 private:
  Program() = default;

  std::string name_;
  std::shared_ptr<const Workload> source_;
  int64_t memory_size_ = 0;
  int64_t alignment_ = 1;
  int32_t num_tensors_ = 0;
  std::vector<BufferInfo> buffers_;
  std::vector<InstructionInfo> instructions_;
  std::vector<int32_t> order_;
  std::vector<int32_t> alias_group_sizes_;
  std::vector<std::vector<int32_t>> alias_group_tensors_;
  std::vector<int32_t> tensor_ids_;
  std::vector<double> table_us_;
  double empty_latency_us_ = 0;
  double full_latency_us_ = 0;
  bool has_loops_ = false;
};

}  // namespace mmapzero::game

#endif  // MMAPZERO_COMMON_GAME_PROGRAM_H_
