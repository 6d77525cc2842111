#include "common/game/program.h"

#include <algorithm>
#include <numeric>

#include "absl/container/flat_hash_map.h"
#include "common/base/status_macros.h"
#include "common/workload/loop_nest.h"
#include "common/workload/workload_check.h"

namespace mmapzero::game {
namespace {

// Microseconds to move `bytes` at `gbps` GB/s.
double TransferUs(int64_t bytes, double gbps) {
  return static_cast<double>(bytes) / (gbps * 1e3);
}

// Dense indices for sparse ids, in order of first appearance.
class DenseIndex {
 public:
  int32_t Get(int32_t id) {
    auto [it, inserted] = index_.emplace(id, static_cast<int32_t>(ids_.size()));
    if (inserted) ids_.push_back(id);
    return it->second;
  }
  const std::vector<int32_t>& ids() const { return ids_; }

 private:
  absl::flat_hash_map<int32_t, int32_t> index_;
  std::vector<int32_t> ids_;
};

}  // namespace

double Program::Latency(int32_t t, const LatencyState& state) const {
  const InstructionInfo& info = instructions_[t];
  switch (info.kind) {
    case LatencyKind::kRoofline:
      return std::max(info.compute_us, state.memory_us);
    case LatencyKind::kMeasured:
      return table_us_[info.table_begin + state.mask] - state.static_saved;
    case LatencyKind::kStatic:
      break;
  }
  return info.empty_latency_us - state.static_saved;
}

LatencyState Program::WithFast(const LatencyState& state, int32_t id) const {
  const BufferInfo& b = buffers_[id];
  LatencyState next = state;
  switch (instructions_[b.target_time].kind) {
    case LatencyKind::kRoofline:
      next.memory_us += b.fast_delta_us;
      break;
    case LatencyKind::kMeasured:
      if (b.measured_slot >= 0) {
        next.mask |= 1u << b.measured_slot;
        break;
      }
      next.static_saved += b.benefit_us;
      break;
    case LatencyKind::kStatic:
      next.static_saved += b.benefit_us;
      break;
  }
  return next;
}

absl::StatusOr<std::shared_ptr<const Program>> Program::Create(
    const Workload& workload) {
  RETURN_IF_ERROR(CheckWorkload(workload));
  std::shared_ptr<Program> program(new Program());
  program->name_ = workload.name();
  program->source_ = std::make_shared<const Workload>(workload);
  program->memory_size_ = workload.memory_size();
  program->alignment_ = std::max<int64_t>(1, workload.alignment());
  const HardwareProfile& hw = workload.hardware();
  const int32_t num_steps = workload.instructions_size();
  const int32_t num_buffers = workload.buffers_size();
  const LoopNest loops(workload);
  program->has_loops_ = loops.has_loops();

  std::vector<std::vector<int32_t>> buffers_of(num_steps);
  DenseIndex tensors, groups;
  program->buffers_.resize(num_buffers);
  for (int32_t id = 0; id < num_buffers; ++id) {
    const Buffer& src = workload.buffers(id);
    BufferInfo& b = program->buffers_[id];
    b.size = src.size();
    b.target_time = src.target_time();
    b.tensor = tensors.Get(src.tensor_id());
    b.alias_group = src.has_alias_id() ? groups.Get(src.alias_id()) : -1;
    b.live_start = src.live_range().start();
    b.live_end = src.live_range().end();
    b.is_output = src.is_output();
    b.demand_us = src.has_demand_us()
                      ? src.demand_us()
                      : TransferUs(src.size(), hw.copy_bandwidth_gbps());
    // Given benefits are per execution; 0 when absent: derived below.
    b.benefit_us = src.benefit_us() * loops.Repeat(src.target_time());
    buffers_of[src.target_time()].push_back(id);
  }
  program->num_tensors_ = static_cast<int32_t>(tensors.ids().size());
  program->tensor_ids_ = tensors.ids();
  program->alias_group_sizes_.assign(groups.ids().size(), 0);
  program->alias_group_tensors_.resize(groups.ids().size());
  for (const BufferInfo& b : program->buffers_) {
    if (b.alias_group < 0) continue;
    ++program->alias_group_sizes_[b.alias_group];
    std::vector<int32_t>& members = program->alias_group_tensors_[b.alias_group];
    if (std::find(members.begin(), members.end(), b.tensor) == members.end()) {
      members.push_back(b.tensor);
    }
  }

  program->instructions_.resize(num_steps);
  for (int32_t t = 0; t < num_steps; ++t) {
    const Instruction& src = workload.instructions(t);
    InstructionInfo& info = program->instructions_[t];
    const double repeat = loops.Repeat(t);
    info.repeat = repeat;
    info.run_start = loops.RunStart(t);
    info.run_end = loops.RunEnd(t);
    // Every latency term below is scaled by the repeat, so L_t(S) is the
    // step's time over the whole run.
    if (src.has_roofline()) {
      info.kind = LatencyKind::kRoofline;
      info.compute_us = repeat * (src.roofline().flops() > 0
                                      ? src.roofline().flops() /
                                            (hw.peak_tflops() * 1e6)
                                      : src.roofline().compute_us());
      for (int32_t id : buffers_of[t]) {
        BufferInfo& b = program->buffers_[id];
        const double slow = TransferUs(b.size, hw.slow_bandwidth_gbps());
        b.fast_delta_us =
            repeat * (TransferUs(b.size, hw.fast_bandwidth_gbps()) - slow);
        info.initial.memory_us += repeat * slow;
      }
    } else if (src.has_measured()) {
      info.kind = LatencyKind::kMeasured;
      info.table_begin = static_cast<int32_t>(program->table_us_.size());
      for (double latency : src.measured().latency_us()) {
        program->table_us_.push_back(repeat * latency);
      }
      for (int slot = 0; slot < src.measured().buffer_ids_size(); ++slot) {
        program->buffers_[src.measured().buffer_ids(slot)].measured_slot =
            static_cast<int8_t>(slot);
      }
    }
    if (info.kind == LatencyKind::kStatic) {
      double total_benefit = 0;
      for (int32_t id : buffers_of[t]) total_benefit += program->buffers_[id].benefit_us;
      info.empty_latency_us = repeat * src.supply_us() + total_benefit;
    }
    // L_t({}) and L_t(all), and the benefits the workload left out.
    const double empty = program->Latency(t, info.initial);
    if (info.kind != LatencyKind::kStatic) info.empty_latency_us = empty;
    LatencyState all = info.initial;
    for (int32_t id : buffers_of[t]) {
      BufferInfo& b = program->buffers_[id];
      all = program->WithFast(all, id);
      if (!workload.buffers(id).has_benefit_us()) {
        b.benefit_us = empty - program->Latency(t, program->WithFast(info.initial, id));
      }
    }
    info.full_latency_us = program->Latency(t, all);
    info.supply_us = src.has_supply_us() ? src.supply_us()
                                         : info.full_latency_us / repeat;
    program->empty_latency_us_ += info.empty_latency_us;
    program->full_latency_us_ += info.full_latency_us;
  }

  program->order_.resize(num_buffers);
  std::iota(program->order_.begin(), program->order_.end(), 0);
  std::sort(program->order_.begin(), program->order_.end(),
            [&](int32_t a, int32_t b) {
              const BufferInfo& x = program->buffers_[a];
              const BufferInfo& y = program->buffers_[b];
              if (x.target_time != y.target_time) return x.target_time < y.target_time;
              if (x.is_output != y.is_output) return !x.is_output;
              return a < b;
            });
  return std::shared_ptr<const Program>(std::move(program));
}

}  // namespace mmapzero::game
