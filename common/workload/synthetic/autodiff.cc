#include "common/workload/synthetic/autodiff.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace mmapzero::synthetic {
namespace {

constexpr int kNoGrad = -1;
constexpr int kSeed = -2;  // d loss / d loss: a constant, not a tensor

class BackwardPass {
 public:
  BackwardPass(int loss, OptimizerKind optimizer, OpGraph* graph);
  void Run();

 private:
  bool NeedsGrad(int tensor) const {
    return tensor < static_cast<int>(needs_grad_.size()) && needs_grad_[tensor];
  }
  void MarkTensorsNeedingGrads(int loss);
  void CountParameterContributions();
  void BackwardOf(const GraphOp& op);
  void PerOperand(const GraphOp& op, int output_grad);
  void Fused(const GraphOp& op);
  void Contribute(int tensor, int grad);
  void GradientComplete(int tensor);
  void Optimize(int parameter);
  TensorSpec GradSpec(int tensor);

  OpGraph& graph_;
  const OptimizerKind optimizer_;
  const int num_forward_ops_;
  std::vector<bool> needs_grad_;  // per forward tensor
  std::vector<int> grad_;         // current gradient tensor, or kNoGrad
  std::vector<int> pending_;      // parameters: contributions still to come
  std::vector<int> grads_made_;   // for naming partial sums
};

BackwardPass::BackwardPass(int loss, OptimizerKind optimizer, OpGraph* graph)
    : graph_(*graph),
      optimizer_(optimizer),
      num_forward_ops_(graph->num_ops()),
      grad_(graph->num_tensors(), kNoGrad),
      pending_(graph->num_tensors(), 0),
      grads_made_(graph->num_tensors(), 0) {
  MarkTensorsNeedingGrads(loss);
  CountParameterContributions();
  grad_[loss] = kSeed;
}

// A tensor needs a gradient when it depends on a parameter (forward) and
// the loss depends on it (backward).
void BackwardPass::MarkTensorsNeedingGrads(int loss) {
  const int n = graph_.num_tensors();
  std::vector<bool> depends_on_parameter(n, false);
  for (int id = 0; id < n; ++id) {
    depends_on_parameter[id] =
        graph_.tensor(id).spec.role == TensorRole::kParameter;
  }
  for (int i = 0; i < num_forward_ops_; ++i) {
    const GraphOp& op = graph_.op(i);
    if (op.grad_rule == GradRule::kNone) continue;
    bool any = false;
    for (int x : op.operands) any |= depends_on_parameter[x];
    for (int y : op.outputs) depends_on_parameter[y] = any;
  }
  std::vector<bool> loss_depends(n, false);
  loss_depends[loss] = true;
  for (int i = num_forward_ops_ - 1; i >= 0; --i) {
    const GraphOp& op = graph_.op(i);
    if (op.grad_rule == GradRule::kNone) continue;
    bool any = false;
    for (int y : op.outputs) any |= loss_depends[y];
    if (!any) continue;
    for (int x : op.operands) loss_depends[x] = true;
  }
  needs_grad_.assign(n, false);
  for (int id = 0; id < n; ++id) {
    needs_grad_[id] = depends_on_parameter[id] && loss_depends[id];
  }
}

void BackwardPass::CountParameterContributions() {
  for (int i = 0; i < num_forward_ops_; ++i) {
    const GraphOp& op = graph_.op(i);
    if (op.grad_rule == GradRule::kNone) continue;
    // BackwardOf runs for exactly these ops: an output has a gradient by
    // then iff it needs one.
    bool output_needs = false;
    for (int y : op.outputs) output_needs |= NeedsGrad(y);
    if (!output_needs) continue;
    for (int x : op.operands) {
      if (NeedsGrad(x) &&
          graph_.tensor(x).spec.role == TensorRole::kParameter) {
        ++pending_[x];
      }
    }
  }
}

void BackwardPass::Run() {
  for (int i = num_forward_ops_ - 1; i >= 0; --i) {
    // A copy: appending ops may move the graph's op storage.
    const GraphOp op = graph_.op(i);
    BackwardOf(op);
  }
}

void BackwardPass::BackwardOf(const GraphOp& op) {
  if (op.grad_rule == GradRule::kNone) return;
  bool any_operand = false;
  for (int x : op.operands) any_operand |= NeedsGrad(x);
  bool any_output = false;
  for (int y : op.outputs) any_output |= grad_[y] != kNoGrad;
  if (!any_operand || !any_output) return;
  switch (op.grad_rule) {
    case GradRule::kPassThrough:
      for (int x : op.operands) {
        if (NeedsGrad(x)) Contribute(x, grad_[op.outputs[0]]);
      }
      break;
    case GradRule::kPerOperand:
      PerOperand(op, grad_[op.outputs[0]]);
      break;
    case GradRule::kFused:
      Fused(op);
      break;
    case GradRule::kNone:
      break;
  }
}

// dx = dy . w^T and dw = x^T . dy: each reads the output gradient and the
// other operands. A second gradient of the same tensor is accumulated in
// the dot itself (an output fusion), in place.
void BackwardPass::PerOperand(const GraphOp& op, int output_grad) {
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const int x = op.operands[i];
    if (!NeedsGrad(x)) continue;
    GraphOp backward;
    const bool weight = graph_.tensor(x).spec.role == TensorRole::kParameter;
    backward.name =
        absl::StrCat(op.name, weight ? ".grad_weight" : ".grad_input");
    backward.opcode = op.opcode;
    backward.flops = op.flops;
    backward.operands.push_back(output_grad);
    for (size_t j = 0; j < op.operands.size(); ++j) {
      if (j != i) backward.operands.push_back(op.operands[j]);
    }
    if (grad_[x] >= 0) {
      backward.operands.push_back(grad_[x]);
      backward.in_place = {{0, static_cast<int>(backward.operands.size()) - 1}};
    }
    const int index = graph_.AddOp(std::move(backward), {GradSpec(x)});
    grad_[x] = graph_.op(index).outputs[0];
    GradientComplete(x);
  }
}

// One op reading the output gradients and what the forward saved, writing
// the gradients of every operand that needs one.
void BackwardPass::Fused(const GraphOp& op) {
  GraphOp backward;
  backward.name = absl::StrCat(op.name, ".grad");
  backward.opcode = absl::StrCat(op.opcode, "-grad");
  backward.flops = op.backward_flops;
  for (int y : op.outputs) {
    if (grad_[y] >= 0) backward.operands.push_back(grad_[y]);
  }
  for (int x : op.saved) backward.operands.push_back(x);
  for (int k : op.saved_outputs) backward.operands.push_back(op.outputs[k]);
  std::vector<int> targets;
  std::vector<TensorSpec> outputs;
  for (int x : op.operands) {
    if (!NeedsGrad(x)) continue;
    targets.push_back(x);
    outputs.push_back(GradSpec(x));
  }
  if (grad_[op.outputs[0]] >= 0 &&
      graph_.tensor(grad_[op.outputs[0]]).bytes() ==
          outputs[0].elements * outputs[0].element_bytes) {
    backward.in_place = {{0, 0}};  // e.g. relu': dx overwrites dy
  }
  const int index = graph_.AddOp(std::move(backward), std::move(outputs));
  const std::vector<int> grads = graph_.op(index).outputs;
  for (size_t k = 0; k < targets.size(); ++k) Contribute(targets[k], grads[k]);
}

void BackwardPass::Contribute(int tensor, int grad) {
  if (grad_[tensor] == kNoGrad) {
    grad_[tensor] = grad;
  } else {
    GraphOp sum;
    sum.name = absl::StrCat(graph_.tensor(tensor).spec.name, ".grad_sum");
    sum.opcode = "add";
    sum.flops = static_cast<double>(graph_.tensor(tensor).spec.elements);
    sum.operands = {grad_[tensor], grad};
    sum.in_place = {{0, 0}};
    const int index = graph_.AddOp(std::move(sum), {GradSpec(tensor)});
    grad_[tensor] = graph_.op(index).outputs[0];
  }
  GradientComplete(tensor);
}

void BackwardPass::GradientComplete(int tensor) {
  if (graph_.tensor(tensor).spec.role != TensorRole::kParameter) return;
  if (--pending_[tensor] == 0) Optimize(tensor);
}

// w, dw, states -> w', states', every output in place of its input.
void BackwardPass::Optimize(int parameter) {
  const TensorSpec spec = graph_.tensor(parameter).spec;
  const bool adam = optimizer_ == OptimizerKind::kAdam;
  GraphOp update;
  update.name = absl::StrCat(spec.name, ".update");
  update.opcode = adam ? "adam-update" : "momentum-update";
  update.flops = (adam ? 12.0 : 4.0) * spec.elements;
  update.operands = {parameter, grad_[parameter]};
  std::vector<TensorSpec> outputs = {{spec.name + ".new", spec.elements,
                                      spec.element_bytes,
                                      TensorRole::kParameter}};
  update.in_place = {{0, 0}};
  for (const char* state : adam ? std::vector<const char*>{".adam_m", ".adam_v"}
                                : std::vector<const char*>{".momentum"}) {
    const TensorSpec state_spec = {spec.name + state, spec.elements, 4,
                                   TensorRole::kOptimizerState};
    update.in_place.push_back({static_cast<int>(outputs.size()),
                               static_cast<int>(update.operands.size())});
    update.operands.push_back(graph_.AddTensor(state_spec));
    outputs.push_back({state_spec.name + ".new", state_spec.elements,
                       state_spec.element_bytes, state_spec.role});
  }
  const int index = graph_.AddOp(std::move(update), std::move(outputs));
  for (int y : graph_.op(index).outputs) graph_.MarkProgramOutput(y);
}

TensorSpec BackwardPass::GradSpec(int tensor) {
  const TensorSpec& spec = graph_.tensor(tensor).spec;
  const int made = grads_made_[tensor]++;
  return {absl::StrCat(spec.name, ".grad", made == 0 ? "" : absl::StrCat(made)),
          spec.elements, spec.element_bytes, TensorRole::kGradient};
}

}  // namespace

void AppendBackwardAndOptimizer(int loss, OptimizerKind optimizer,
                                OpGraph* graph) {
  BackwardPass(loss, optimizer, graph).Run();
}

}  // namespace mmapzero::synthetic
