#include "common/hlo/hlo_cost.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/hlo/hlo_call_inliner.h"
#include "common/hlo/hlo_lexer.h"
#include "common/hlo/hlo_opcodes.h"
#include "common/hlo/hlo_trip_count.h"

namespace mmapzero::hlo {
namespace {


const HloShape kEmptyShape{};

const HloShape& OperandShape(const HloComputation& computation,
                             const HloInstruction& instruction, size_t i) {
  if (i >= instruction.operands.size()) return kEmptyShape;
  const HloInstruction* operand = computation.Find(instruction.operands[i]);
  return operand == nullptr ? kEmptyShape : operand->shape;
}

// The first array leaf of a shape (a custom-call's result before scratch).
const HloShape& FirstLeaf(const HloShape& shape) {
  std::vector<const HloShape*> leaves;
  shape.AppendLeaves(&leaves);
  return leaves.empty() ? kEmptyShape : *leaves.front();
}

double Elements(const HloShape& shape) {
  std::vector<const HloShape*> leaves;
  shape.AppendLeaves(&leaves);
  double elements = 0;
  for (const HloShape* leaf : leaves) {
    elements += static_cast<double>(leaf->ElementCount());
  }
  return elements;
}

std::string AttributeOr(const HloInstruction& instruction,
                        std::string_view key) {
  const std::string* value = instruction.Attribute(key);
  return value == nullptr ? "" : *value;
}

// Product of lhs dims at `contracting` (indices out of range ignored).
double ContractedSize(const HloShape& lhs,
                      const std::vector<int64_t>& contracting) {
  double size = 1;
  for (int64_t d : contracting) {
    if (d >= 0 && d < static_cast<int64_t>(lhs.dims.size())) {
      size *= static_cast<double>(lhs.dims[d]);
    }
  }
  return size;
}

// 2 x forward-output elements x kernel elements / output features, with
// the kernel's 'o' dimension located through dim_labels ("b01f_01io->b01f").
double ConvolutionFlops(const HloShape& forward_output, const HloShape& kernel,
                        std::string_view dim_labels) {
  const size_t underscore = dim_labels.find('_');
  const size_t arrow = dim_labels.find("->");
  double per_output = static_cast<double>(kernel.ElementCount());
  if (underscore != std::string_view::npos && arrow != std::string_view::npos &&
      arrow > underscore) {
    const std::string_view labels =
        dim_labels.substr(underscore + 1, arrow - underscore - 1);
    const size_t o = labels.find('o');
    if (o != std::string_view::npos && labels.size() == kernel.dims.size() &&
        kernel.dims[o] > 0) {
      per_output /= static_cast<double>(kernel.dims[o]);
    }
  }
  return 2 * static_cast<double>(forward_output.ElementCount()) * per_output;
}

// Product of the window sizes in `window={size=3x3 stride=...}`.
double WindowSize(std::string_view window) {
  const size_t at = window.find("size=");
  if (at == std::string_view::npos) return 1;
  size_t end = at + 5;
  while (end < window.size() && window[end] != ' ' && window[end] != '}') {
    ++end;
  }
  double size = 1;
  for (int64_t d : IntegersIn(window.substr(at + 5, end - at - 5))) {
    size *= static_cast<double>(std::max<int64_t>(d, 1));
  }
  return size;
}

}  // namespace

HloCostModel::HloCostModel(const HloModule& module,
                           const HardwareProfile& hardware,
                           std::string source_name)
    : module_(module),
      hardware_(hardware),
      source_name_(std::move(source_name)) {}

void HloCostModel::Warn(int line, const std::string& message) {
  const std::string text = absl::StrCat(source_name_, ":", line, ": ", message);
  if (warned_.emplace(text, 0).second) warnings_.push_back(text);
}

InstructionCost HloCostModel::Cost(const HloComputation& computation,
                                   const HloInstruction& instruction) {
  InstructionCost cost;
  const std::string& opcode = instruction.opcode;
  if (opcode == "while") {
    cost.compute_us = WhileUs(computation, instruction);
  } else if (opcode == "conditional") {
    for (const std::string& branch : ControlFlowComputations(instruction)) {
      cost.compute_us =
          std::max(cost.compute_us, ComputationUs(branch, instruction.line));
    }
  } else if (opcode == "call") {
    cost.compute_us =
        ComputationUs(AttributeOr(instruction, "to_apply"), instruction.line);
  } else {
    cost.flops = Flops(computation, instruction);
  }
  return cost;
}

double HloCostModel::Flops(const HloComputation& computation,
                           const HloInstruction& instruction) {
  const HloShape& out = instruction.shape;
  switch (ClassOf(instruction.opcode)) {
    case OpcodeClass::kElementwise:
      return Elements(out);
    case OpcodeClass::kReduction:
      if (instruction.opcode == "reduce-window") {
        return Elements(out) * WindowSize(AttributeOr(instruction, "window"));
      }
      return Elements(OperandShape(computation, instruction, 0));
    case OpcodeClass::kContraction:
      if (instruction.opcode == "convolution") {
        return ConvolutionFlops(out, OperandShape(computation, instruction, 1),
                                AttributeOr(instruction, "dim_labels"));
      }
      return 2 * Elements(out) *
             ContractedSize(
                 OperandShape(computation, instruction, 0),
                 IntegersIn(AttributeOr(instruction, "lhs_contracting_dims")));
    case OpcodeClass::kCustomCall:
      return CustomCallFlops(computation, instruction);
    case OpcodeClass::kFusion:
      return FusionFlops(instruction);
    default:
      // An async start runs the computation it wraps.
      if (instruction.opcode == "async-start" &&
          instruction.Attribute("calls") != nullptr) {
        return FusionFlops(instruction);
      }
      return 0;
  }
}

double HloCostModel::CustomCallFlops(const HloComputation& computation,
                                     const HloInstruction& instruction) {
  std::string target = AttributeOr(instruction, "custom_call_target");
  target.erase(std::remove(target.begin(), target.end(), '"'), target.end());
  const std::string config = AttributeOr(instruction, "backend_config");
  const HloShape& result = FirstLeaf(instruction.shape);
  if (target.find("gemm") != std::string::npos ||
      target.find("matmul") != std::string::npos) {
    const size_t at = config.find("lhs_contracting_dimensions");
    const size_t close = at == std::string::npos ? at : config.find(']', at);
    if (close != std::string::npos) {
      return 2 * static_cast<double>(result.ElementCount()) *
             ContractedSize(OperandShape(computation, instruction, 0),
                            IntegersIn(std::string_view(config).substr(
                                at + 26, close - at - 26)));
    }
    Warn(instruction.line,
         absl::StrCat("custom-call '", target,
                      "': no dot dimension numbers in backend_config; "
                      "costed as 2 FLOPs per output element"));
    return 2 * static_cast<double>(result.ElementCount());
  }
  if (target.rfind("__cudnn$conv", 0) == 0) {
    const std::string labels = AttributeOr(instruction, "dim_labels");
    if (target.find("BackwardInput") != std::string::npos) {
      return ConvolutionFlops(OperandShape(computation, instruction, 0),
                              OperandShape(computation, instruction, 1),
                              labels);
    }
    if (target.find("BackwardFilter") != std::string::npos) {
      return ConvolutionFlops(OperandShape(computation, instruction, 1), result,
                              labels);
    }
    return ConvolutionFlops(result, OperandShape(computation, instruction, 1),
                            labels);
  }
  if (target.find("fused_attn") != std::string::npos ||
      target.find("fmha") != std::string::npos) {
    const auto batch = IntegerAfterKey(config, "input_batch");
    const auto heads = IntegerAfterKey(config, "attn_heads");
    const auto q = IntegerAfterKey(config, "q_max_seqlen");
    const auto kv = IntegerAfterKey(config, "kv_max_seqlen");
    const auto dqk = IntegerAfterKey(config, "qk_head_dim");
    const auto dv = IntegerAfterKey(config, "v_head_dim");
    if (batch && heads && q && kv && dqk && dv) {
      // QK^T and PV: 2 FLOPs per multiply-add; the backward pass ~2.5x.
      const double forward =
          2.0 * static_cast<double>(*batch * *heads) * static_cast<double>(*q) *
          static_cast<double>(*kv) * static_cast<double>(*dqk + *dv);
      return target.find("backward") != std::string::npos ? 2.5 * forward
                                                          : forward;
    }
  }
  Warn(instruction.line,
       absl::StrCat("custom-call '", target,
                    "' has no cost model: costed as one FLOP per output "
                    "element (memory-bound)"));
  return Elements(instruction.shape);
}

double HloCostModel::FusionFlops(const HloInstruction& instruction) {
  const std::string called = AttributeOr(instruction, "calls");
  auto it = fusion_flops_.find(called);
  if (it != fusion_flops_.end()) return it->second;
  const HloComputation* fused = module_.FindComputation(called);
  if (fused == nullptr || depth_ > kMaxCallDepth) {
    Warn(instruction.line,
         absl::StrCat(instruction.opcode, ": called computation '", called,
                      "' not found; costed by bytes only"));
    return 0;
  }
  ++depth_;
  double flops = 0;
  for (const HloInstruction& inner : fused->instructions) {
    flops += Flops(*fused, inner);
  }
  --depth_;
  fusion_flops_[called] = flops;
  return flops;
}

double HloCostModel::WhileUs(const HloComputation& computation,
                             const HloInstruction& instruction) {
  const TripCount count = LoopTripCount(module_, computation, instruction);
  if (!count.known) {
    Warn(instruction.line,
         "while: trip count unknown (no known_trip_count, condition not "
         "'counter < constant'); costed as one iteration");
  }
  return static_cast<double>(count.trips) *
         (ComputationUs(AttributeOr(instruction, "body"), instruction.line) +
          ComputationUs(AttributeOr(instruction, "condition"),
                        instruction.line));
}

int HloCostModel::SlowestBranch(const HloInstruction& conditional) {
  int slowest = -1;
  double slowest_us = -1;
  const std::vector<std::string> branches = ControlFlowComputations(conditional);
  for (size_t k = 0; k < branches.size(); ++k) {
    if (module_.FindComputation(branches[k]) == nullptr) return -1;
    const double us = ComputationUs(branches[k], conditional.line);
    if (us > slowest_us) {
      slowest = static_cast<int>(k);
      slowest_us = us;
    }
  }
  return slowest;
}

double HloCostModel::ComputationUs(std::string_view name, int line) {
  std::string key(name);
  if (!key.empty() && key.front() == '%') key.erase(0, 1);
  auto it = computation_us_.find(key);
  if (it != computation_us_.end()) return it->second;
  const HloComputation* computation = module_.FindComputation(key);
  if (computation == nullptr || depth_ > kMaxCallDepth) {
    Warn(line, absl::StrCat("called computation '", key,
                            "' not found (or calls nest too deep); "
                            "costed as zero time"));
    return 0;
  }
  ++depth_;
  double us = 0;
  for (const HloInstruction& instruction : computation->instructions) {
    us += InstructionUs(*computation, instruction);
  }
  --depth_;
  computation_us_[key] = us;
  return us;
}

double HloCostModel::InstructionUs(const HloComputation& computation,
                                   const HloInstruction& instruction) {
  const OpcodeClass kind = ClassOf(instruction.opcode);
  if (kind == OpcodeClass::kSource || kind == OpcodeClass::kView ||
      kind == OpcodeClass::kNoWork || IsPlacementCopy(instruction)) {
    return 0;  // no work: a placement's transfers are not the program's
  }
  const InstructionCost cost = Cost(computation, instruction);
  double compute_us = cost.compute_us;
  if (cost.flops > 0 && hardware_.peak_tflops() > 0) {
    compute_us += cost.flops / (hardware_.peak_tflops() * 1e6);
  }
  double bytes = static_cast<double>(instruction.shape.ByteSize());
  absl::flat_hash_set<std::string_view> seen;
  for (const std::string& operand : instruction.operands) {
    if (!seen.insert(operand).second) continue;
    if (const HloInstruction* defined = computation.Find(operand)) {
      bytes += static_cast<double>(defined->shape.ByteSize());
    }
  }
  const double memory_us = hardware_.slow_bandwidth_gbps() > 0
                               ? bytes / (hardware_.slow_bandwidth_gbps() * 1e3)
                               : 0;
  return std::max(compute_us, memory_us);
}

}  // namespace mmapzero::hlo
