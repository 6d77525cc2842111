#include "common/workload/synthetic/lower.h"

#include <algorithm>
#include <cmath>

namespace mmapzero::synthetic {
namespace {

std::vector<int> LastUses(const OpGraph& graph) {
  std::vector<int> last_use(graph.num_tensors(), -1);
  for (int t = 0; t < graph.num_ops(); ++t) {
    for (int x : graph.op(t).operands) last_use[x] = t;
  }
  return last_use;
}

int64_t ScaledBytes(int64_t bytes, const LoweringOptions& options) {
  const int64_t granules = std::llround(static_cast<double>(bytes) *
                                        options.scale / options.size_granule);
  return std::max<int64_t>(1, granules) * options.size_granule;
}

}  // namespace

std::vector<TensorLifetime> TensorLifetimes(const OpGraph& graph) {
  const std::vector<int> last_use = LastUses(graph);
  const int last_step = graph.num_ops() - 1;
  std::vector<TensorLifetime> lifetimes(graph.num_tensors());
  for (int id = 0; id < graph.num_tensors(); ++id) {
    const GraphTensor& tensor = graph.tensor(id);
    if (tensor.producer < 0 && last_use[id] < 0) continue;  // never touched
    TensorLifetime& life = lifetimes[id];
    life.start = std::max(tensor.producer, 0);
    life.end =
        tensor.program_output ? last_step : std::max(life.start, last_use[id]);
  }
  return lifetimes;
}

int64_t PeakLiveBytes(const OpGraph& graph) {
  const std::vector<TensorLifetime> lifetimes = TensorLifetimes(graph);
  std::vector<int64_t> delta(graph.num_ops() + 1, 0);
  for (int id = 0; id < graph.num_tensors(); ++id) {
    if (lifetimes[id].start < 0) continue;
    delta[lifetimes[id].start] += graph.tensor(id).bytes();
    delta[lifetimes[id].end + 1] -= graph.tensor(id).bytes();
  }
  int64_t live = 0;
  int64_t peak = 0;
  for (int t = 0; t < graph.num_ops(); ++t) {
    live += delta[t];
    peak = std::max(peak, live);
  }
  return peak;
}

int64_t LargestTensorBytes(const OpGraph& graph) {
  const std::vector<TensorLifetime> lifetimes = TensorLifetimes(graph);
  int64_t largest = 0;
  for (int id = 0; id < graph.num_tensors(); ++id) {
    if (lifetimes[id].start >= 0) {
      largest = std::max(largest, graph.tensor(id).bytes());
    }
  }
  return largest;
}

void LowerToWorkload(const OpGraph& graph, const LoweringOptions& options,
                     Workload* workload) {
  const std::vector<TensorLifetime> lifetimes = TensorLifetimes(graph);
  const std::vector<int> last_use = LastUses(graph);
  std::vector<int> dense_id(graph.num_tensors(), -1);
  int num_dense = 0;
  int num_groups = 0;
  auto add_buffer = [&](int t, int tensor_index, bool is_output) {
    const GraphTensor& tensor = graph.tensor(tensor_index);
    if (dense_id[tensor_index] < 0) dense_id[tensor_index] = num_dense++;
    Buffer* buffer = workload->add_buffers();
    buffer->set_id(workload->buffers_size() - 1);
    buffer->set_size(ScaledBytes(tensor.bytes(), options));
    buffer->set_is_output(is_output);
    buffer->set_target_time(t);
    buffer->set_tensor_id(dense_id[tensor_index]);
    buffer->mutable_live_range()->set_start(lifetimes[tensor_index].start);
    buffer->mutable_live_range()->set_end(lifetimes[tensor_index].end);
    buffer->set_tensor_name(tensor.spec.name);
    return buffer;
  };
  for (int t = 0; t < graph.num_ops(); ++t) {
    const GraphOp& op = graph.op(t);
    Instruction* instruction = workload->add_instructions();
    instruction->set_name(op.name);
    instruction->set_opcode(op.opcode);
    instruction->mutable_roofline()->set_flops(
        std::round(op.flops * options.scale));
    std::vector<Buffer*> operands;
    std::vector<Buffer*> outputs;
    for (int x : op.operands) operands.push_back(add_buffer(t, x, false));
    for (int y : op.outputs) outputs.push_back(add_buffer(t, y, true));
    for (const auto& [k, i] : op.in_place) {
      const int x = op.operands[i];
      const bool legal = last_use[x] == t && !graph.tensor(x).program_output &&
                         operands[i]->size() == outputs[k]->size() &&
                         !operands[i]->has_alias_id() &&
                         !outputs[k]->has_alias_id();
      if (!legal) continue;
      operands[i]->set_alias_id(num_groups);
      outputs[k]->set_alias_id(num_groups);
      ++num_groups;
    }
  }
}

}  // namespace mmapzero::synthetic
