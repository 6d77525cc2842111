#include "common/hlo/hlo_workload_builder.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/hlo/hlo_cost.h"
#include "common/hlo/hlo_lexer.h"
#include "common/hlo/hlo_module_parser.h"
#include "common/hlo/hlo_opcodes.h"

namespace mmapzero::hlo {
namespace {

struct Tensor {
  std::string name;
  int64_t size = 0;
  int def_time = -1;         // -1: present when the program starts
  int defining_buffer = -1;  // output buffer at def_time
  int last_buffer = -1;      // the buffer with the latest target_time
  bool program_output = false;
};

struct PendingBuffer {
  int tensor = 0;
  int time = 0;
  bool is_output = false;
};

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.substr(text.size() - suffix.size()) == suffix;
}

class Builder {
 public:
  Builder(const HloModule& module, const FlatEntry& entry,
          const HloImportOptions& options)
      : module_(module),
        entry_(entry.computation),
        inlined_calls_(entry.inlined_calls),
        options_(options),
        cost_(module, options.hardware, options.source_name) {}

  absl::StatusOr<HloImportResult> Build();

 private:
  absl::Status Visit(const HloInstruction& instruction);
  absl::StatusOr<bool> ResolveView(const HloInstruction& instruction,
                                   std::vector<int>* leaves);
  void AddInstruction(const HloInstruction& instruction);
  // A loop or conditional stays one instruction: warns that the code it
  // runs is not modelled as buffers.
  void WarnOpaque(const HloInstruction& instruction);
  // A `*-done`: what its start read stays live until here.
  void EndAsync(const HloInstruction& done);
  // Once per module: layouts carry memory spaces (an earlier memory-space
  // assignment) that the import ignores.
  void NoteMemorySpaces(const HloInstruction& instruction);
  void AliasInPlace(const HloInstruction& instruction,
                    const absl::flat_hash_map<int, int>& operand_buffers,
                    const std::vector<int>& outputs);
  void AliasInputsToOutputs();
  std::vector<int> NewTensors(const HloInstruction& instruction, int time);
  // The leaves of element `path` of a value with `shape` and `leaves`;
  // false when the path does not exist.
  bool Slice(const HloShape& shape, const std::vector<int>& leaves,
             const std::vector<int64_t>& path, std::vector<int>* out) const;
  bool SameSizes(const std::vector<int>& leaves, const HloShape& shape) const;
  int AddBuffer(int tensor, int time, bool is_output);
  void Union(int a, int b, int line, std::string_view why);
  int Find(int buffer);
  void Warn(int line, const std::string& message);
  void Emit(HloImportResult* result);

  const HloModule& module_;
  const HloComputation& entry_;  // calls inlined, in program order
  const int64_t inlined_calls_;
  const HloImportOptions& options_;
  HloCostModel cost_;
  Workload workload_;
  std::vector<Tensor> tensors_;
  absl::flat_hash_map<std::string, std::vector<int>> leaves_;
  std::vector<PendingBuffer> buffers_;
  std::vector<int> parent_;
  std::vector<std::string> warnings_;
  bool warned_peak_ = false;
  // Async starts: the tensors each read (by the start's name), and the
  // last step each such tensor must stay live to (its done's).
  absl::flat_hash_map<std::string, std::vector<int>> async_reads_;
  absl::flat_hash_map<int, int> live_until_;
  int memory_space_arrays_ = 0;
  int memory_space_line_ = 0;
};

void Builder::Warn(int line, const std::string& message) {
  warnings_.push_back(
      absl::StrCat(options_.source_name, ":", line, ": ", message));
}

std::vector<int> Builder::NewTensors(const HloInstruction& instruction,
                                     int time) {
  std::vector<const HloShape*> shapes;
  instruction.shape.AppendLeaves(&shapes);
  std::vector<int> leaves;
  for (size_t i = 0; i < shapes.size(); ++i) {
    Tensor tensor;
    tensor.name = shapes.size() == 1 && !instruction.shape.IsTuple()
                      ? instruction.name
                      : absl::StrCat(instruction.name, "{", i, "}");
    tensor.size = shapes[i]->ByteSize();
    tensor.def_time = time;
    leaves.push_back(static_cast<int>(tensors_.size()));
    tensors_.push_back(std::move(tensor));
  }
  return leaves;
}

bool Builder::Slice(const HloShape& shape, const std::vector<int>& leaves,
                    const std::vector<int64_t>& path,
                    std::vector<int>* out) const {
  if (static_cast<int>(leaves.size()) != shape.LeafCount()) return false;
  const HloShape* current = &shape;
  size_t offset = 0;
  for (int64_t index : path) {
    if (!current->IsTuple() || index < 0 ||
        index >= static_cast<int64_t>(current->elements.size())) {
      return false;
    }
    for (int64_t i = 0; i < index; ++i) {
      offset += current->elements[i].LeafCount();
    }
    current = &current->elements[index];
  }
  out->assign(leaves.begin() + offset,
              leaves.begin() + offset + current->LeafCount());
  return true;
}

bool Builder::SameSizes(const std::vector<int>& leaves,
                        const HloShape& shape) const {
  std::vector<const HloShape*> shapes;
  shape.AppendLeaves(&shapes);
  if (shapes.size() != leaves.size()) return false;
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (tensors_[leaves[i]].size != shapes[i]->ByteSize()) return false;
  }
  return true;
}

absl::StatusOr<bool> Builder::ResolveView(const HloInstruction& instruction,
                                          std::vector<int>* leaves) {
  const std::string& opcode = instruction.opcode;
  if (opcode == "tuple") {
    for (const std::string& operand : instruction.operands) {
      const std::vector<int>& part = leaves_.at(operand);
      leaves->insert(leaves->end(), part.begin(), part.end());
    }
    return SameSizes(*leaves, instruction.shape);
  }
  if (instruction.operands.empty()) return false;
  const HloInstruction& operand = *entry_.Find(instruction.operands[0]);
  const std::vector<int>& source = leaves_.at(operand.name);
  if (opcode == "get-tuple-element") {
    const std::string* index = instruction.Attribute("index");
    const std::vector<int64_t> path =
        index == nullptr ? std::vector<int64_t>{} : IntegersIn(*index);
    if (path.size() != 1 || !Slice(operand.shape, source, path, leaves)) {
      return absl::InvalidArgumentError(absl::StrCat(
          options_.source_name, ":", instruction.line, ": get-tuple-element '",
          instruction.name, "': index ", index == nullptr ? "missing" : *index,
          " is not an element of ", operand.shape.ToString()));
    }
    return true;
  }
  if (SameSizes(source, instruction.shape)) {
    *leaves = source;
    return true;
  }
  if (IsAsyncDone(opcode) && instruction.shape.kind == HloShape::Kind::kToken) {
    leaves->clear();  // send-done: only a token, no data of its own
    return true;
  }
  if (IsAsyncDone(opcode) || opcode == "async-update") {
    const std::vector<int64_t> preference = opcode == "copy-done"
                                                ? std::vector<int64_t>{0}
                                                : std::vector<int64_t>{1, 0};
    for (int64_t element : preference) {
      if (Slice(operand.shape, source, {element}, leaves) &&
          SameSizes(*leaves, instruction.shape)) {
        return true;
      }
    }
  }
  leaves->clear();
  return false;
}

int Builder::AddBuffer(int tensor, int time, bool is_output) {
  const int id = static_cast<int>(buffers_.size());
  buffers_.push_back({tensor, time, is_output});
  parent_.push_back(id);
  tensors_[tensor].last_buffer = id;
  if (is_output) tensors_[tensor].defining_buffer = id;
  return id;
}

int Builder::Find(int buffer) {
  while (parent_[buffer] != buffer) {
    parent_[buffer] = parent_[parent_[buffer]];
    buffer = parent_[buffer];
  }
  return buffer;
}

void Builder::Union(int a, int b, int line, std::string_view why) {
  const Tensor& ta = tensors_[buffers_[a].tensor];
  const Tensor& tb = tensors_[buffers_[b].tensor];
  if (ta.size != tb.size) {
    Warn(line, absl::StrCat(std::string(why), ": '", ta.name, "' (", ta.size,
                            " bytes) and '", tb.name, "' (", tb.size,
                            " bytes) differ in size; not aliased"));
    return;
  }
  parent_[Find(a)] = Find(b);
}

void Builder::AddInstruction(const HloInstruction& instruction) {
  const int t = workload_.instructions_size();
  Instruction* out = workload_.add_instructions();
  out->set_name(instruction.name);
  out->set_opcode(instruction.opcode);
  const InstructionCost cost = cost_.Cost(entry_, instruction);
  double flops = cost.flops;
  if (flops > 0 && !(options_.hardware.peak_tflops() > 0)) {
    if (!warned_peak_) {
      Warn(instruction.line, "hardware has no peak_tflops: FLOPs ignored");
    }
    warned_peak_ = true;
    flops = 0;
  }
  out->mutable_roofline()->set_flops(flops);
  out->mutable_roofline()->set_compute_us(cost.compute_us);

  // Operand tensors, each once, in operand order.
  std::vector<int> reads;
  absl::flat_hash_set<int> seen;
  for (const std::string& operand : instruction.operands) {
    for (int tensor : leaves_.at(operand)) {
      if (seen.insert(tensor).second) reads.push_back(tensor);
    }
  }
  // Async starts pass their operands through as one tuple element.
  std::vector<int> outputs = NewTensors(instruction, t);
  const int forwarded =
      instruction.opcode == "copy-start" ? 1
      : EndsWith(instruction.opcode, "-start") && instruction.shape.IsTuple()
          ? 0
          : -1;
  std::vector<int> all_operand_leaves;
  for (const std::string& operand : instruction.operands) {
    const std::vector<int>& part = leaves_.at(operand);
    all_operand_leaves.insert(all_operand_leaves.end(), part.begin(),
                              part.end());
  }
  if (forwarded >= 0 &&
      forwarded < static_cast<int>(instruction.shape.elements.size()) &&
      SameSizes(all_operand_leaves, instruction.shape.elements[forwarded])) {
    size_t offset = 0;
    for (int i = 0; i < forwarded; ++i) {
      offset += instruction.shape.elements[i].LeafCount();
    }
    std::copy(all_operand_leaves.begin(), all_operand_leaves.end(),
              outputs.begin() + offset);
  }

  if (IsAsyncStart(instruction.opcode)) {
    async_reads_[instruction.name] = reads;
  }
  absl::flat_hash_map<int, int> operand_buffers;
  for (int tensor : reads) {
    if (tensors_[tensor].size > 0) {
      operand_buffers[tensor] = AddBuffer(tensor, t, /*is_output=*/false);
    }
  }
  for (int tensor : outputs) {
    if (tensors_[tensor].def_time == t && tensors_[tensor].size > 0 &&
        tensors_[tensor].defining_buffer < 0) {
      AddBuffer(tensor, t, /*is_output=*/true);
    }
  }
  AliasInPlace(instruction, operand_buffers, outputs);
  leaves_[instruction.name] = std::move(outputs);
}

void Builder::AliasInPlace(const HloInstruction& instruction,
                           const absl::flat_hash_map<int, int>& operand_buffers,
                           const std::vector<int>& outputs) {
  // (output leaf, operand tensor) pairs that XLA updates in place.
  std::vector<std::pair<int, int>> pairs;
  auto operand_leaves = [&](size_t i) -> const std::vector<int>& {
    static const std::vector<int> kNone;
    return i < instruction.operands.size() ? leaves_.at(instruction.operands[i])
                                           : kNone;
  };
  const std::string& opcode = instruction.opcode;
  if (opcode == "dynamic-update-slice" || opcode == "scatter") {
    for (size_t k = 0; k < outputs.size(); ++k) {
      if (operand_leaves(k).size() == 1) {
        pairs.emplace_back(k, operand_leaves(k)[0]);
      }
    }
  } else if (opcode == "while" && operand_leaves(0).size() == outputs.size()) {
    for (size_t k = 0; k < outputs.size(); ++k) {
      pairs.emplace_back(k, operand_leaves(0)[k]);
    }
  }
  if (const std::string* list =
          instruction.Attribute("output_to_operand_aliasing")) {
    auto aliases = ParseAliasList(*list);
    if (!aliases.ok()) {
      Warn(instruction.line,
           absl::StrCat("output_to_operand_aliasing not understood (",
                        std::string(aliases.status().message()), "); ignored"));
    } else {
      for (const HloAlias& alias : *aliases) {
        std::vector<int> out_slice, in_slice;
        const HloInstruction* operand =
            alias.parameter < static_cast<int64_t>(instruction.operands.size())
                ? entry_.Find(instruction.operands[alias.parameter])
                : nullptr;
        std::vector<int> indices(outputs.size());
        std::iota(indices.begin(), indices.end(), 0);
        if (operand == nullptr ||
            !Slice(instruction.shape, indices, alias.output_index,
                   &out_slice) ||
            !Slice(operand->shape, leaves_.at(operand->name),
                   alias.parameter_index, &in_slice) ||
            in_slice.size() != out_slice.size()) {
          Warn(instruction.line,
               "output_to_operand_aliasing entry does not "
               "match the shapes; ignored");
          continue;
        }
        for (size_t k = 0; k < out_slice.size(); ++k) {
          pairs.emplace_back(out_slice[k], in_slice[k]);
        }
      }
    }
  } else if (opcode == "fusion") {
    // A fusion whose root updates a parameter in place.
    const std::string* calls = instruction.Attribute("calls");
    const HloComputation* fused =
        calls == nullptr ? nullptr : module_.FindComputation(*calls);
    if (fused != nullptr) {
      const HloInstruction& root = fused->instructions[fused->root];
      const HloInstruction* target =
          root.opcode == "dynamic-update-slice" && !root.operands.empty()
              ? fused->Find(root.operands[0])
              : nullptr;
      if (target != nullptr && target->opcode == "parameter") {
        const std::vector<int64_t> k = IntegersIn(target->literal);
        if (k.size() == 1 && outputs.size() == 1 &&
            operand_leaves(k[0]).size() == 1) {
          pairs.emplace_back(0, operand_leaves(k[0])[0]);
        }
      }
    }
  }
  for (const auto& [k, tensor] : pairs) {
    const int out_tensor = outputs[k];
    auto in = operand_buffers.find(tensor);
    const int out_buffer =
        tensors_[out_tensor].def_time == workload_.instructions_size() - 1
            ? tensors_[out_tensor].defining_buffer
            : -1;
    if (in == operand_buffers.end() || out_buffer < 0) continue;
    Union(in->second, out_buffer, instruction.line, opcode);
  }
}

void Builder::AliasInputsToOutputs() {
  const HloInstruction& root = entry_.instructions[entry_.root];
  for (const HloAlias& alias : module_.input_output_alias) {
    const HloInstruction* parameter = nullptr;
    for (const HloInstruction& instruction : entry_.instructions) {
      const std::vector<int64_t> number = IntegersIn(instruction.literal);
      if (instruction.opcode == "parameter" && number.size() == 1 &&
          number[0] == alias.parameter) {
        parameter = &instruction;
      }
    }
    std::vector<int> outs, ins;
    if (parameter == nullptr ||
        !Slice(root.shape, leaves_.at(root.name), alias.output_index, &outs) ||
        !Slice(parameter->shape, leaves_.at(parameter->name),
               alias.parameter_index, &ins) ||
        outs.size() != ins.size()) {
      Warn(module_.header_line,
           absl::StrCat("input_output_alias: parameter ", alias.parameter,
                        " does not match an output; ignored"));
      continue;
    }
    for (size_t k = 0; k < outs.size(); ++k) {
      if (outs[k] == ins[k]) continue;  // passed through unchanged
      const int in = tensors_[ins[k]].last_buffer;
      const int out = tensors_[outs[k]].defining_buffer;
      if (in >= 0 && out >= 0) {
        Union(in, out, module_.header_line, "input_output_alias");
      }
    }
  }
}

void Builder::WarnOpaque(const HloInstruction& instruction) {
  const std::string& opcode = instruction.opcode;
  if (opcode != "while" && opcode != "conditional") {
    return;  // a call to a missing computation: the cost model warns
  }
  const std::vector<std::string> called = ControlFlowComputations(instruction);
  size_t inside = 0;
  for (const std::string& name : called) {
    if (const HloComputation* computation = module_.FindComputation(name)) {
      inside += computation->instructions.size();
    }
  }
  Warn(instruction.line,
       absl::StrCat(opcode, " '", instruction.name, "' is one instruction: the ",
                    inside, " instructions of ",
                    opcode == "while" ? "its body and condition"
                                      : "its branches",
                    " are costed in its time but their buffers are not "
                    "modelled"));
}

void Builder::EndAsync(const HloInstruction& done) {
  if (done.operands.empty()) return;
  auto reads = async_reads_.find(done.operands[0]);
  if (reads == async_reads_.end()) return;
  const int until = workload_.instructions_size() - 1;
  for (int tensor : reads->second) {
    int& end = live_until_[tensor];
    end = std::max(end, until);
  }
}

void Builder::NoteMemorySpaces(const HloInstruction& instruction) {
  std::vector<const HloShape*> shapes;
  instruction.shape.AppendLeaves(&shapes);
  for (const HloShape* shape : shapes) {
    if (shape->memory_space != 0) {
      if (memory_space_arrays_++ == 0) memory_space_line_ = instruction.line;
    }
  }
}

absl::Status Builder::Visit(const HloInstruction& instruction) {
  NoteMemorySpaces(instruction);
  if (IsAsyncDone(instruction.opcode)) EndAsync(instruction);
  switch (ClassOf(instruction.opcode)) {
    case OpcodeClass::kSource:
    case OpcodeClass::kNoWork:
      leaves_[instruction.name] = NewTensors(instruction, -1);
      return absl::OkStatus();
    case OpcodeClass::kView: {
      std::vector<int> leaves;
      auto resolved = ResolveView(instruction, &leaves);
      if (!resolved.ok()) return resolved.status();
      if (*resolved) {
        leaves_[instruction.name] = std::move(leaves);
        return absl::OkStatus();
      }
      Warn(instruction.line,
           absl::StrCat(instruction.opcode, " '", instruction.name,
                        "' does not match its operand's shape; modelled as "
                        "an instruction that writes a new tensor"));
      break;
    }
    case OpcodeClass::kControlFlow:
      WarnOpaque(instruction);
      break;
    default:
      break;
  }
  AddInstruction(instruction);
  return absl::OkStatus();
}

void Builder::Emit(HloImportResult* result) {
  const int num_steps = workload_.instructions_size();
  for (int tensor : leaves_.at(entry_.instructions[entry_.root].name)) {
    tensors_[tensor].program_output = true;
  }
  std::vector<int> live_end(tensors_.size(), 0);
  for (const PendingBuffer& buffer : buffers_) {
    live_end[buffer.tensor] = std::max(live_end[buffer.tensor], buffer.time);
  }
  for (const auto& [tensor, until] : live_until_) {
    live_end[tensor] = std::max(live_end[tensor], until);
  }
  absl::flat_hash_map<int, int> tensor_ids, group_ids;
  absl::flat_hash_map<int, int> group_members;
  for (size_t i = 0; i < buffers_.size(); ++i) {
    ++group_members[Find(static_cast<int>(i))];
  }
  for (size_t i = 0; i < buffers_.size(); ++i) {
    const PendingBuffer& pending = buffers_[i];
    const Tensor& tensor = tensors_[pending.tensor];
    Buffer* buffer = workload_.add_buffers();
    buffer->set_id(static_cast<int>(i));
    buffer->set_size(tensor.size);
    buffer->set_is_output(pending.is_output);
    buffer->set_target_time(pending.time);
    buffer->set_tensor_id(
        tensor_ids.emplace(pending.tensor, tensor_ids.size()).first->second);
    buffer->set_tensor_name(tensor.name);
    const int root = Find(static_cast<int>(i));
    if (group_members[root] > 1) {
      buffer->set_alias_id(
          group_ids.emplace(root, group_ids.size()).first->second);
    }
    const int start = std::max(tensor.def_time, 0);
    buffer->mutable_live_range()->set_start(start);
    buffer->mutable_live_range()->set_end(
        tensor.program_output ? num_steps - 1
                              : std::max(start, live_end[pending.tensor]));
  }
  auto& provenance = *workload_.mutable_provenance();
  provenance["importer"] = "hlo";
  provenance["source"] = options_.source_name;
  provenance["hlo_module"] = module_.name;
  provenance["hlo_entry"] = entry_.name;
  provenance["is_scheduled"] = module_.is_scheduled ? "true" : "false";
  provenance["order"] = module_.is_scheduled
                            ? "schedule"
                            : "entry computation order (not scheduled)";
  provenance["hlo_entry_instructions"] =
      std::to_string(module_.entry_computation().instructions.size());
  provenance["inlined_calls"] = std::to_string(inlined_calls_);
  provenance["instructions"] = std::to_string(num_steps);
  provenance["buffers"] = std::to_string(workload_.buffers_size());
  provenance["tensors"] = std::to_string(tensor_ids.size());
  provenance["alias_groups"] = std::to_string(group_ids.size());
  if (memory_space_arrays_ > 0) {
    Warn(memory_space_line_,
         absl::StrCat(memory_space_arrays_,
                      " arrays carry a memory-space annotation S(n) from an "
                      "earlier memory-space assignment; ignored: the game "
                      "decides placement"));
  }
  for (const std::string& warning : cost_.warnings()) {
    warnings_.push_back(warning);
  }
  provenance["warnings"] = std::to_string(warnings_.size());
  result->warnings = std::move(warnings_);
  result->workload = std::move(workload_);
}

absl::StatusOr<HloImportResult> Builder::Build() {
  workload_.set_name(module_.name);
  *workload_.mutable_hardware() = options_.hardware;
  const int64_t memory_size = options_.memory_size > 0
                                  ? options_.memory_size
                                  : options_.hardware.fast_memory_bytes();
  if (memory_size <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "memory size: hardware profile '", options_.hardware.name(),
        "' gives no fast_memory_bytes; set a memory size"));
  }
  workload_.set_memory_size(memory_size);
  workload_.set_alignment(options_.alignment);
  for (const HloInstruction& instruction : entry_.instructions) {
    RETURN_IF_ERROR(Visit(instruction));
  }
  if (workload_.instructions_size() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        options_.source_name, ":", entry_.line, ": entry computation '",
        entry_.name,
        "' does no work (only parameters, constants and views): nothing to "
        "import"));
  }
  AliasInputsToOutputs();
  HloImportResult result;
  Emit(&result);
  return result;
}

}  // namespace

absl::StatusOr<HloImportResult> BuildWorkload(const HloModule& module,
                                              const FlatEntry& entry,
                                              const HloImportOptions& options) {
  Builder builder(module, entry, options);
  return builder.Build();
}

}  // namespace mmapzero::hlo
