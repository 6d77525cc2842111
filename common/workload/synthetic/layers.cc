#include "common/workload/synthetic/layers.h"

#include <utility>

namespace mmapzero::synthetic {
namespace {

GraphOp MakeOp(const std::string& name, const char* opcode, double flops,
               std::vector<int> operands, GradRule rule) {
  GraphOp op;
  op.name = name;
  op.opcode = opcode;
  op.flops = flops;
  op.operands = std::move(operands);
  op.grad_rule = rule;
  return op;
}

int64_t ElementsOf(ModelBuilder& mb, int tensor) {
  return mb.graph().tensor(tensor).spec.elements;
}

}  // namespace

int MatMul(ModelBuilder& mb, const std::string& name, int x, int w,
           int64_t rows, int64_t in, int64_t out) {
  GraphOp op =
      MakeOp(name, "dot", 2.0 * rows * in * out, {x, w}, GradRule::kPerOperand);
  return mb.AddSimpleOp(std::move(op), rows * out);
}

int Dense(ModelBuilder& mb, const std::string& name, int x, int64_t rows,
          int64_t in, int64_t out) {
  const int w = mb.AddParameter(name + ".w", in * out);
  return MatMul(mb, name, x, w, rows, in, out);
}

int BiasActivation(ModelBuilder& mb, const std::string& name, int x,
                   int64_t rows, int64_t cols, double flops_per_element) {
  const int b = mb.AddParameter(name + ".b", cols);
  const double elements = static_cast<double>(rows * cols);
  GraphOp op = MakeOp(name, "fusion", (1 + flops_per_element) * elements,
                      {x, b}, GradRule::kFused);
  op.in_place = {{0, 0}};
  op.saved = {x};
  op.backward_flops = (2 + flops_per_element) * elements;
  return mb.AddSimpleOp(std::move(op), rows * cols);
}

int Activation(ModelBuilder& mb, const std::string& name, int x,
               double flops_per_element) {
  const int64_t elements = ElementsOf(mb, x);
  GraphOp op = MakeOp(name, "fusion", flops_per_element * elements, {x},
                      GradRule::kFused);
  op.in_place = {{0, 0}};
  op.saved = {x};
  op.backward_flops = (1 + flops_per_element) * elements;
  return mb.AddSimpleOp(std::move(op), elements);
}

int Add(ModelBuilder& mb, const std::string& name, int a, int b) {
  const int64_t elements = ElementsOf(mb, a);
  GraphOp op = MakeOp(name, "add", static_cast<double>(elements), {a, b},
                      GradRule::kPassThrough);
  op.in_place = {{0, 0}};
  return mb.AddSimpleOp(std::move(op), elements);
}

int LayerNorm(ModelBuilder& mb, const std::string& name, int x, int64_t rows,
              int64_t cols) {
  const int scale_shift = mb.AddParameter(name + ".scale_shift", 2 * cols);
  const double elements = static_cast<double>(rows * cols);
  GraphOp op = MakeOp(name, "layer-norm", 8 * elements, {x, scale_shift},
                      GradRule::kFused);
  op.in_place = {{0, 0}};
  op.backward_flops = 16 * elements;
  std::vector<TensorSpec> outputs = {
      {name, rows * cols, mb.activation_bytes()}};
  if (mb.training()) outputs.push_back({name + ".stats", 2 * rows, kF32Bytes});
  if (mb.training()) {
    op.saved = {x, scale_shift};
    op.saved_outputs = {1};
  }
  const int index = mb.graph().AddOp(std::move(op), std::move(outputs));
  return mb.graph().op(index).outputs[0];
}

int BatchNormRelu(ModelBuilder& mb, const std::string& name, int x,
                  int64_t positions, int64_t channels) {
  const int scale_shift = mb.AddParameter(name + ".scale_shift", 2 * channels);
  const double elements = static_cast<double>(positions * channels);
  GraphOp op = MakeOp(name, "batch-norm-relu", 10 * elements, {x, scale_shift},
                      GradRule::kFused);
  op.in_place = {{0, 0}};
  op.backward_flops = 20 * elements;
  std::vector<TensorSpec> outputs = {
      {name, positions * channels, mb.activation_bytes()}};
  if (mb.training()) {
    outputs.push_back({name + ".stats", 2 * channels, kF32Bytes});
  }
  if (mb.training()) {
    op.saved = {x, scale_shift};
    op.saved_outputs = {1, 0};  // statistics, and the output for relu
  }
  const int index = mb.graph().AddOp(std::move(op), std::move(outputs));
  return mb.graph().op(index).outputs[0];
}

int Conv2d(ModelBuilder& mb, const std::string& name, int x,
           const ConvShape& s) {
  const int w = mb.AddParameter(
      name + ".w", s.kernel * s.kernel * s.in_channels * s.out_channels);
  const int64_t out_positions = s.batch * s.out_size() * s.out_size();
  GraphOp op = MakeOp(name, "convolution",
                      2.0 * out_positions * s.out_channels * s.in_channels *
                          s.kernel * s.kernel,
                      {x, w}, GradRule::kPerOperand);
  return mb.AddSimpleOp(std::move(op), out_positions * s.out_channels);
}

int GlobalPool(ModelBuilder& mb, const std::string& name, int x, int64_t batch,
               int64_t positions, int64_t channels) {
  const double elements = static_cast<double>(batch * positions * channels);
  GraphOp op = MakeOp(name, "reduce", elements, {x}, GradRule::kFused);
  op.backward_flops = elements;  // broadcast of the output gradient
  return mb.AddSimpleOp(std::move(op), batch * channels);
}

int Attention(ModelBuilder& mb, const std::string& name, int qkv, int64_t batch,
              int64_t seq, int64_t d, int64_t heads) {
  // Causal: QK^T and PV over half the (query, key) pairs, 2 FLOPs each.
  const double matmul_flops = 2.0 * batch * seq * seq * d;
  const double softmax_flops = 2.5 * batch * heads * seq * seq;
  GraphOp op = MakeOp(name, "attention", matmul_flops + softmax_flops, {qkv},
                      GradRule::kFused);
  op.backward_flops = 2.5 * (matmul_flops + softmax_flops);  // recomputes P
  std::vector<TensorSpec> outputs = {
      {name, batch * seq * d, mb.activation_bytes()}};
  if (mb.training()) {
    outputs.push_back({name + ".logsumexp", batch * heads * seq, kF32Bytes});
  }
  if (mb.training()) {
    op.saved = {qkv};
    op.saved_outputs = {0, 1};
  }
  const int index = mb.graph().AddOp(std::move(op), std::move(outputs));
  return mb.graph().op(index).outputs[0];
}

int Embedding(ModelBuilder& mb, const std::string& name, int ids, int64_t vocab,
              int64_t d, int64_t tokens) {
  const int table = mb.AddParameter(name + ".table", vocab * d);
  GraphOp op = MakeOp(name, "gather", static_cast<double>(tokens * d),
                      {table, ids}, GradRule::kFused);
  op.saved = {ids};  // the backward scatter-adds rows of the gradient
  op.backward_flops = static_cast<double>(tokens * d);
  return mb.AddSimpleOp(std::move(op), tokens * d);
}

std::pair<int, int> LstmCell(ModelBuilder& mb, const std::string& name, int pre,
                             int bias, int c_prev, int64_t batch,
                             int64_t hidden) {
  // 3 sigmoids, 2 tanh, the bias add and the state update: ~30 FLOPs per
  // hidden unit.
  const double elements = static_cast<double>(batch * hidden);
  GraphOp op = MakeOp(name, "lstm-cell", 30 * elements, {pre, bias, c_prev},
                      GradRule::kFused);
  op.in_place = {{0, 2}};
  op.backward_flops = 60 * elements;
  op.saved = {pre, bias, c_prev};
  op.saved_outputs = {0};
  const int index = mb.graph().AddOp(
      std::move(op), {{name + ".c", batch * hidden, kF32Bytes},
                      {name + ".h", batch * hidden, mb.activation_bytes()}});
  const GraphOp& added = mb.graph().op(index);
  return {added.outputs[0], added.outputs[1]};
}

int Head(ModelBuilder& mb, int logits, int labels, int64_t rows,
         int64_t classes) {
  if (!mb.training()) {
    mb.graph().MarkProgramOutput(logits);
    return logits;
  }
  const double elements = static_cast<double>(rows * classes);
  GraphOp op = MakeOp("loss", "softmax-cross-entropy", 5 * elements,
                      {logits, labels}, GradRule::kFused);
  op.saved = {logits, labels};
  op.backward_flops = 4 * elements;
  const int loss = mb.AddSimpleOp(std::move(op), 1, kF32Bytes);
  mb.graph().MarkProgramOutput(loss);
  return loss;
}

}  // namespace mmapzero::synthetic
