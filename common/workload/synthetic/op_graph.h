// The generator's intermediate form of a program: tensors (shapes reduced to
// element counts and element widths) and the ops that read and write them,
// in program order. Forward ops also say how their gradient is formed, so
// the training pass (autodiff.h) can derive backward and optimizer ops the
// way a framework would. lower.h turns the graph into a Workload: one buffer
// per use of a tensor by an op.
#ifndef MMAPZERO_COMMON_WORKLOAD_SYNTHETIC_OP_GRAPH_H_
#define MMAPZERO_COMMON_WORKLOAD_SYNTHETIC_OP_GRAPH_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mmapzero::synthetic {

enum class TensorRole {
  kInput,           // program input that needs no gradient (data, labels)
  kParameter,       // trainable weight
  kOptimizerState,  // e.g. momentum, one per parameter
  kActivation,      // produced by a forward op
  kGradient,        // produced by a backward op
};

struct TensorSpec {
  std::string name;
  int64_t elements = 0;
  int element_bytes = 0;  // 2 for bf16, 4 for f32 or int32
  TensorRole role = TensorRole::kActivation;
};

struct GraphTensor {
  TensorSpec spec;
  int producer = -1;            // op index; -1: exists when the program starts
  bool program_output = false;  // lives until the program ends
  int64_t bytes() const { return spec.elements * spec.element_bytes; }
};

// How the backward pass treats a forward op (autodiff.h).
enum class GradRule {
  kNone,         // no gradient flows through (diagnostics, optimizer)
  kPassThrough,  // each operand's gradient is the output's gradient (add)
  kPerOperand,   // one backward op per operand that needs a gradient,
                 // reading the output gradient and the other operands (dot,
                 // convolution)
  kFused,        // one backward op reading the output gradients and `saved`,
                 // writing the gradients of every operand that needs one
};

struct GraphOp {
  std::string name;
  std::string opcode;
  double flops = 0;
  std::vector<int> operands;  // tensor ids, each at most once
  std::vector<int> outputs;   // tensor ids, filled by OpGraph::AddOp
  // (output index, operand index): the output may overwrite the operand in
  // place. Lowering makes the pair an alias group when the op is the
  // operand's last use and the sizes agree, as buffer assignment would.
  std::vector<std::pair<int, int>> in_place;
  GradRule grad_rule = GradRule::kNone;
  // kFused: what the backward op reads besides the output gradients.
  std::vector<int> saved;          // tensor ids (operands or earlier tensors)
  std::vector<int> saved_outputs;  // indices into outputs
  double backward_flops = 0;       // FLOPs of the backward op
};

class OpGraph {
 public:
  // A tensor that exists when the program starts (input, weight, state).
  int AddTensor(TensorSpec spec);
  // Appends `op`, creating its outputs from `outputs`; drops repeated
  // operands (one buffer per use). Returns the op's index.
  int AddOp(GraphOp op, std::vector<TensorSpec> outputs);
  void MarkProgramOutput(int tensor) { tensors_[tensor].program_output = true; }

  int num_tensors() const { return static_cast<int>(tensors_.size()); }
  int num_ops() const { return static_cast<int>(ops_.size()); }
  const GraphTensor& tensor(int id) const { return tensors_[id]; }
  const GraphOp& op(int index) const { return ops_[index]; }
  // Buffers the lowered workload will have: operands plus outputs of all ops.
  int64_t num_buffers() const { return num_buffers_; }

 private:
  std::vector<GraphTensor> tensors_;
  std::vector<GraphOp> ops_;
  int64_t num_buffers_ = 0;
};

}  // namespace mmapzero::synthetic

#endif  // MMAPZERO_COMMON_WORKLOAD_SYNTHETIC_OP_GRAPH_H_
