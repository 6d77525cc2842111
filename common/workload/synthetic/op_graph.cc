#include "common/workload/synthetic/op_graph.h"

#include <algorithm>

namespace mmapzero::synthetic {

int OpGraph::AddTensor(TensorSpec spec) {
  tensors_.push_back(GraphTensor{std::move(spec)});
  return num_tensors() - 1;
}

int OpGraph::AddOp(GraphOp op, std::vector<TensorSpec> outputs) {
  const int index = num_ops();
  // Keep the first use of each operand; in_place indices follow the move.
  std::vector<int> unique;
  std::vector<int> new_index(op.operands.size());
  for (size_t i = 0; i < op.operands.size(); ++i) {
    auto it = std::find(unique.begin(), unique.end(), op.operands[i]);
    new_index[i] = static_cast<int>(it - unique.begin());
    if (it == unique.end()) unique.push_back(op.operands[i]);
  }
  op.operands = std::move(unique);
  for (auto& [output, operand] : op.in_place) operand = new_index[operand];
  op.outputs.clear();
  for (TensorSpec& spec : outputs) {
    op.outputs.push_back(num_tensors());
    tensors_.push_back(GraphTensor{std::move(spec), index});
  }
  num_buffers_ += op.operands.size() + op.outputs.size();
  ops_.push_back(std::move(op));
  return index;
}

}  // namespace mmapzero::synthetic
