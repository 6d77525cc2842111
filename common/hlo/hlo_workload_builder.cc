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
#include "common/workload/workload_limits.h"

namespace mmapzero::hlo {
namespace {

struct Tensor {
  std::string name;
  int64_t size = 0;
  int def_time = -1;         // -1: present when the program starts
  std::string def_name;      // the flat instruction that defines it
  int def_flat = -1;         // its index; -1 for a copy the import added
  int def_leaf = 0;          // which array leaf of it
  int defining_buffer = -1;  // output buffer at def_time
  int last_buffer = -1;      // the buffer with the latest target_time
  bool program_output = false;
};

struct PendingBuffer {
  int tensor = 0;
  int time = 0;
  bool is_output = false;
};

// A loop whose entry marker has been visited and whose exit has not.
struct OpenLoop {
  const FlatLoop* loop = nullptr;
  int entry_step = 0;
  int body_first_step = -1;          // the first step of the body
  int first_buffer = 0;              // buffers after the entry marker's
  std::vector<int> state;            // the loop state's leaves (tensors)
  absl::flat_hash_map<int, int> entry_read;  // tensor -> its read there
};

// The data a value carries, leaf by leaf, as a placement reads it: the
// memory space, and the transfer (copy-start) it arrived by, if any.
struct Placed {
  int64_t space = 0;
  int copy = -1;
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
        flat_loops_(entry.loops),
        conditionals_laid_out_(entry.conditionals_laid_out),
        conditionals_(entry.conditionals),
        first_conditional_line_(entry.first_conditional_line),
        options_(options),
        cost_(module, options.hardware, options.source_name) {}

  absl::StatusOr<HloImportResult> Build();

 private:
  absl::Status Visit(const HloInstruction& instruction);
  // Loops (rules §7): the entry marker reads the loop state; the exit marker
  // ties each state element's buffers into one alias group and records the
  // loop's steps and trip count.
  void EnterLoop(const HloInstruction& entry);
  void ExitLoop(const HloInstruction& exit);
  // A step of zero time that reads `tensors` (the loop markers).
  int AddMarker(const HloInstruction& instruction,
                const std::vector<int>& tensors,
                absl::flat_hash_map<int, int>* reads);
  // A copy of `tensor` into a new tensor, named after the loop `marker`
  // it comes before: where XLA's copy insertion would put one (before the
  // loop, or at the end of its body); returns the copy.
  int AddLoopCopy(const HloInstruction& marker, size_t element, int tensor);
  void WarnTripCount(const FlatLoop& loop);
  void LastUses();
  // Whether `tensor` is read after flat instruction `index` (by name: a
  // tuple read later counts for all its elements).
  bool ReadAfter(int tensor, int index) const;
  // Ties the in-place pairs whose operand is not read after the update
  // (otherwise XLA copies the operand first: the pair stays apart).
  void ApplyInPlace(const std::vector<int>& live_end);
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
  const std::vector<FlatLoop>& flat_loops_;
  const int64_t conditionals_laid_out_;
  const std::vector<FlatConditional>& conditionals_;
  const int first_conditional_line_;
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
  std::vector<OpenLoop> open_loops_;
  // In-place updates: an operand's buffer and the output that reuses it,
  // tied once live ranges are known (ApplyInPlace).
  struct InPlace {
    int in = 0;
    int out = 0;
    int line = 0;
    std::string why;
  };
  std::vector<InPlace> in_place_;
  int in_place_refused_ = 0;
  absl::flat_hash_set<std::string> trip_counts_used_;
  int current_flat_ = -1;  // the flat instruction being visited
  // The module's own placement (HloImportResult::mapping): what each
  // value's leaves are, the transfers, and each buffer's action.
  void StartTransfer(const HloInstruction& start);
  void PlaceValue(const HloInstruction& instruction);
  // How `tensor` is placed in the first of `operands` that carries it.
  Placed PlacedThrough(int tensor, const std::vector<std::string>& operands);
  void PlaceReads(const std::vector<int>& reads,
                  const absl::flat_hash_map<int, int>& operand_buffers,
                  const std::vector<std::string>& operands);
  void DecideOutputs();
  struct Transfer {
    int tensor = 0;
    Placed from;
    int64_t to_space = 0;
    int start_step = 0;
    int done_step = -1;
  };
  absl::flat_hash_map<std::string, std::vector<Placed>> placed_;
  absl::flat_hash_map<std::string, int> transfer_of_start_;
  std::vector<Transfer> transfers_;
  absl::flat_hash_set<int> transfers_read_;
  std::vector<Action> mapping_;  // by buffer (proto Action)
  std::vector<int64_t> home_space_;  // by tensor, where it is defined
  int placement_annotations_ = 0;
  std::vector<int> step_flat_;  // HloImportTrace::step_flat
  // The last flat instruction that reads each flat name, views followed
  // through to what they name (LastUses); ROOT's values: past the end.
  absl::flat_hash_map<std::string, int> last_use_;
  absl::flat_hash_set<int> marker_steps_;  // zero time, zero benefit
  int loop_copies_ = 0;
  int while_loops_ = 0;  // laid out as loops of the workload
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
    tensor.def_name = instruction.name;
    tensor.def_flat = current_flat_;
    tensor.def_leaf = static_cast<int>(i);
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
  step_flat_.push_back(current_flat_);
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
  PlaceReads(reads, operand_buffers, instruction.operands);
  PlaceValue(instruction);
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
    in_place_.push_back({in->second, out_buffer, instruction.line, opcode});
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
        in_place_.push_back(
            {in, out, module_.header_line, "input_output_alias"});
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

int Builder::AddMarker(const HloInstruction& instruction,
                       const std::vector<int>& tensors,
                       absl::flat_hash_map<int, int>* reads) {
  const int t = workload_.instructions_size();
  step_flat_.push_back(current_flat_);
  Instruction* out = workload_.add_instructions();
  out->set_name(instruction.name);
  out->set_opcode(instruction.opcode == kLoopEntryOpcode ? "loop-entry"
                                                          : "loop-exit");
  out->set_supply_us(0);  // no latency model: zero time, zero benefit
  marker_steps_.insert(t);
  std::vector<int> read;
  for (int tensor : tensors) {
    if (tensors_[tensor].size > 0 && !reads->contains(tensor)) {
      (*reads)[tensor] = AddBuffer(tensor, t, /*is_output=*/false);
      read.push_back(tensor);
    }
  }
  PlaceReads(read, *reads, instruction.operands);
  return t;
}

void Builder::EnterLoop(const HloInstruction& entry) {
  OpenLoop open;
  for (const FlatLoop& loop : flat_loops_) {
    if (loop.name + "/entry" == entry.name) open.loop = &loop;
  }
  open.state = leaves_.at(entry.operands[0]);
  // Each element the body changes needs an allocation of its own: where
  // its initial value is read after the loop, or starts another element
  // too, XLA's copy insertion copies it first, and so does the import.
  absl::flat_hash_set<int> seen;
  for (size_t k = 0; k < open.state.size(); ++k) {
    const int tensor = open.state[k];
    const bool first = seen.insert(tensor).second;
    const bool changed = open.loop == nullptr ||
                         k >= open.loop->passes_through.size() ||
                         !open.loop->passes_through[k];
    if (!changed || tensors_[tensor].size == 0) continue;
    if (!first || ReadAfter(tensor, open.loop == nullptr ? 0 : open.loop->exit)) {
      open.state[k] = AddLoopCopy(entry, k, tensor);
    }
  }
  open.entry_step = AddMarker(entry, open.state, &open.entry_read);
  open.first_buffer = static_cast<int>(buffers_.size());
  leaves_[entry.name] = open.state;
  PlaceValue(entry);
  open_loops_.push_back(std::move(open));
}

int Builder::AddLoopCopy(const HloInstruction& marker, size_t element,
                         int tensor) {
  HloInstruction copy;
  copy.name = absl::StrCat(marker.name, "/copy{", element, "}");
  copy.opcode = "copy";
  copy.line = marker.line;
  const std::string source = absl::StrCat(copy.name, "/operand");
  leaves_[source] = {tensor};
  copy.operands = {source};
  // Any array of the same byte size costs the same: bytes only.
  copy.shape.element_type = "u8";
  copy.shape.element_bits = 8;
  copy.shape.dims = {tensors_[tensor].size};
  const int visiting = current_flat_;
  current_flat_ = -1;  // a copy of the import's own
  AddInstruction(copy);
  current_flat_ = visiting;
  ++loop_copies_;
  return leaves_.at(copy.name).front();
}

void Builder::ExitLoop(const HloInstruction& exit) {
  OpenLoop open = std::move(open_loops_.back());
  open_loops_.pop_back();
  const int first_step = open.entry_step + 1;
  std::vector<int> result = leaves_.at(exit.operands[0]);
  // The loop state's reads inside the loop, and the last step of each.
  absl::flat_hash_map<int, std::vector<int>> reads_inside;
  absl::flat_hash_map<int, int> last_read;
  for (int id = open.first_buffer; id < static_cast<int>(buffers_.size());
       ++id) {
    const PendingBuffer& buffer = buffers_[id];
    if (buffer.is_output || !open.entry_read.contains(buffer.tensor)) continue;
    reads_inside[buffer.tensor].push_back(id);
    last_read[buffer.tensor] = buffer.time;
  }
  // Element k of the state is one allocation for the whole loop: its value
  // on entry, its reads, the body's new value and what the exit reads.
  // The new value may take that allocation only if the body defines it
  // after the old value's last read and no other element took it; else
  // the body ends with a copy into it, as XLA's copy insertion does.
  const int last_body_step = workload_.instructions_size() - 1;
  absl::flat_hash_set<int> taken;
  absl::flat_hash_map<int, std::vector<int>> copy_reads;  // by source
  std::vector<std::vector<int>> members(result.size());
  for (size_t k = 0; k < result.size() && k < open.state.size(); ++k) {
    const int old_value = open.state[k];
    auto entry_read = open.entry_read.find(old_value);
    if (entry_read == open.entry_read.end()) continue;  // zero bytes
    members[k].push_back(entry_read->second);
    const auto inside = reads_inside.find(old_value);
    if (inside != reads_inside.end()) {
      members[k].insert(members[k].end(), inside->second.begin(),
                        inside->second.end());
    }
    int new_value = result[k];
    if (new_value == old_value) continue;  // passed through unchanged
    const Tensor& defined = tensors_[new_value];
    const auto last = last_read.find(old_value);
    const bool takes_place =
        defined.def_time >= first_step && defined.def_time <= last_body_step &&
        (last == last_read.end() || defined.def_time >= last->second) &&
        defined.defining_buffer >= 0 && !taken.contains(new_value) &&
        !open.entry_read.contains(new_value);
    if (!takes_place) {
      const int first_new_buffer = static_cast<int>(buffers_.size());
      const int source = new_value;
      new_value = AddLoopCopy(exit, k, new_value);
      result[k] = new_value;
      // A copy of an element's old value reads it from that element's
      // allocation, as every read inside the loop does.
      for (int id = first_new_buffer; id < static_cast<int>(buffers_.size());
           ++id) {
        if (!buffers_[id].is_output && buffers_[id].tensor == source) {
          copy_reads[source].push_back(id);
        }
      }
    }
    taken.insert(new_value);
    members[k].push_back(tensors_[new_value].defining_buffer);
  }
  absl::flat_hash_map<int, int> exit_read;
  const int exit_step = AddMarker(exit, result, &exit_read);
  for (size_t k = 0; k < members.size(); ++k) {
    if (members[k].empty()) continue;
    if (const auto copied = copy_reads.find(open.state[k]);
        copied != copy_reads.end()) {
      members[k].insert(members[k].end(), copied->second.begin(),
                        copied->second.end());
    }
    const auto read = exit_read.find(result[k]);
    if (read != exit_read.end()) members[k].push_back(read->second);
    for (size_t i = 1; i < members[k].size(); ++i) {
      Union(members[k][i], members[k][0], exit.line, "while");
    }
  }
  leaves_[exit.name] = std::move(result);
  PlaceValue(exit);
  if (open.loop == nullptr || first_step > exit_step - 1) return;
  int64_t trips = open.loop->trip_count.trips;
  auto given = options_.trip_counts.find(open.loop->name);
  if (given == options_.trip_counts.end()) {
    given = options_.trip_counts.find(open.loop->hlo_name);
  }
  if (given != options_.trip_counts.end()) {
    trips = given->second;
    trip_counts_used_.insert(given->first);
  } else {
    WarnTripCount(*open.loop);
  }
  ++while_loops_;
  Loop* loop = workload_.add_loops();
  loop->set_name(open.loop->name);
  loop->set_trip_count(trips);
  loop->set_first_step(first_step);
  loop->set_last_step(exit_step - 1);
  // The condition and the body are computations of their own: the body is a
  // one-trip loop inside the loop, so no copy runs from one into the other
  // (an async copy starts and ends in one computation).
  if (open.body_first_step > first_step && open.body_first_step < exit_step) {
    Loop* body = workload_.add_loops();
    body->set_name(absl::StrCat(open.loop->name, kBodySuffix));
    body->set_trip_count(1);
    body->set_first_step(open.body_first_step);
    body->set_last_step(exit_step - 1);
  }
}

void Builder::WarnTripCount(const FlatLoop& loop) {
  const TripCount& count = loop.trip_count;
  if (!count.known) {
    Warn(loop.line,
         absl::StrCat("while '", loop.name,
                      "': trip count unknown (no known_trip_count, condition "
                      "not 'counter < constant'); modelled as one trip (give "
                      "it with --trip-counts ",
                      loop.hlo_name, "=N)"));
  } else if (count.upper_bound) {
    Warn(loop.line, absl::StrCat("while '", loop.name, "': ", count.trips,
                                 " trips, ", count.how));
  }
}

void Builder::LastUses() {
  const int count = static_cast<int>(entry_.instructions.size());
  last_use_[entry_.instructions[entry_.root].name] = count;
  for (int i = count - 1; i >= 0; --i) {
    const HloInstruction& instruction = entry_.instructions[i];
    // A view reads nothing itself: what it names is read where it is.
    int use = i;
    if (ClassOf(instruction.opcode) == OpcodeClass::kView ||
        IsPlacementCopy(instruction)) {
      const auto later = last_use_.find(instruction.name);
      if (later == last_use_.end()) continue;
      use = later->second;
    }
    for (const std::string& operand : instruction.operands) {
      int& last = last_use_[operand];
      last = std::max(last, use);
    }
  }
}

bool Builder::ReadAfter(int tensor, int index) const {
  const auto last = last_use_.find(tensors_[tensor].def_name);
  return last != last_use_.end() && last->second > index;
}

void Builder::ApplyInPlace(const std::vector<int>& live_end) {
  for (const InPlace& pair : in_place_) {
    const Tensor& operand = tensors_[buffers_[pair.in].tensor];
    if (operand.program_output ||
        live_end[buffers_[pair.in].tensor] > buffers_[pair.out].time) {
      ++in_place_refused_;
      continue;
    }
    Union(pair.in, pair.out, pair.line, pair.why);
  }
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
  // The first step of a body, for the loop being laid out.
  for (OpenLoop& open : open_loops_) {
    if (open.body_first_step < 0 && open.loop != nullptr &&
        current_flat_ >= open.loop->body_begin) {
      open.body_first_step = workload_.instructions_size();
    }
  }
  if (instruction.opcode == kLoopEntryOpcode) {
    EnterLoop(instruction);
    return absl::OkStatus();
  }
  if (instruction.opcode == kLoopExitOpcode) {
    ExitLoop(instruction);
    return absl::OkStatus();
  }
  NoteMemorySpaces(instruction);
  if (IsPlacementCopy(instruction)) {
    StartTransfer(instruction);
    return absl::OkStatus();
  }
  if (IsAsyncDone(instruction.opcode)) EndAsync(instruction);
  switch (ClassOf(instruction.opcode)) {
    case OpcodeClass::kSource:
    case OpcodeClass::kNoWork:
      leaves_[instruction.name] = NewTensors(instruction, -1);
      PlaceValue(instruction);
      return absl::OkStatus();
    case OpcodeClass::kView: {
      std::vector<int> leaves;
      auto resolved = ResolveView(instruction, &leaves);
      if (!resolved.ok()) return resolved.status();
      if (*resolved) {
        leaves_[instruction.name] = std::move(leaves);
        PlaceValue(instruction);
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

void Builder::StartTransfer(const HloInstruction& start) {
  const std::vector<int> source =
      start.operands.empty() ? std::vector<int>{}
                             : leaves_.at(start.operands[0]);
  std::vector<Placed> from = start.operands.empty()
                                 ? std::vector<Placed>{}
                                 : placed_[start.operands[0]];
  from.resize(source.size());
  // Element {0} the copy, {1} the source, {2} the copy's context.
  std::vector<int> leaves = source;
  leaves.insert(leaves.end(), source.begin(), source.end());
  Tensor context;
  context.name = start.name + "{context}";
  leaves.push_back(static_cast<int>(tensors_.size()));
  tensors_.push_back(std::move(context));
  leaves_[start.name] = std::move(leaves);
  const int id = static_cast<int>(transfers_.size());
  Transfer transfer;
  transfer.tensor = source.size() == 1 ? source[0] : -1;
  transfer.from = from.empty() ? Placed{} : from[0];
  transfer.to_space = start.shape.elements[0].memory_space;
  transfer.start_step = workload_.instructions_size();
  transfers_.push_back(transfer);
  transfer_of_start_[start.name] = id;
  std::vector<Placed> placed(source.size(), Placed{transfer.to_space, id});
  placed.insert(placed.end(), from.begin(), from.end());
  placed.push_back(Placed{});
  placed_[start.name] = std::move(placed);
}

void Builder::PlaceValue(const HloInstruction& instruction) {
  const std::vector<int>& leaves = leaves_.at(instruction.name);
  std::vector<int64_t> spaces;
  instruction.shape.AppendLeafSpaces(&spaces);
  std::vector<Placed> placed(leaves.size());
  if (instruction.opcode == "copy-done" && !instruction.operands.empty()) {
    const auto transfer = transfer_of_start_.find(instruction.operands[0]);
    if (transfer != transfer_of_start_.end()) {
      transfers_[transfer->second].done_step = workload_.instructions_size();
      for (Placed& leaf : placed) {
        leaf = Placed{transfers_[transfer->second].to_space, transfer->second};
      }
      placed_[instruction.name] = std::move(placed);
      return;
    }
  }
  if (instruction.opcode == "get-tuple-element" &&
      !instruction.operands.empty()) {
    const HloInstruction* tuple = entry_.Find(instruction.operands[0]);
    const std::vector<Placed>& from = placed_[instruction.operands[0]];
    const std::string* index = instruction.Attribute("index");
    std::vector<int> positions(from.size());
    std::iota(positions.begin(), positions.end(), 0);
    std::vector<int> slice;
    if (tuple != nullptr && index != nullptr &&
        Slice(tuple->shape, positions, IntegersIn(*index), &slice) &&
        slice.size() == placed.size()) {
      for (size_t k = 0; k < slice.size(); ++k) placed[k] = from[slice[k]];
      placed_[instruction.name] = std::move(placed);
      return;
    }
  }
  for (size_t k = 0; k < leaves.size(); ++k) {
    const int tensor = leaves[k];
    if (tensors_[tensor].def_flat == current_flat_ && current_flat_ >= 0) {
      placed[k].space = k < spaces.size() ? spaces[k] : 0;  // defined here
      if (tensor >= static_cast<int>(home_space_.size())) {
        home_space_.resize(tensors_.size(), 0);
      }
      home_space_[tensor] = placed[k].space;
      if (placed[k].space != 0) ++placement_annotations_;
      continue;
    }
    placed[k] = PlacedThrough(tensor, instruction.operands);  // passed on
  }
  placed_[instruction.name] = std::move(placed);
}

Placed Builder::PlacedThrough(int tensor,
                              const std::vector<std::string>& operands) {
  for (const std::string& operand : operands) {
    const auto carried = leaves_.find(operand);
    if (carried == leaves_.end()) continue;
    const auto at =
        std::find(carried->second.begin(), carried->second.end(), tensor);
    if (at == carried->second.end()) continue;
    const std::vector<Placed>& from = placed_[operand];
    const size_t i = static_cast<size_t>(at - carried->second.begin());
    return i < from.size() ? from[i] : Placed{};
  }
  return Placed{};
}

void Builder::PlaceReads(const std::vector<int>& reads,
                         const absl::flat_hash_map<int, int>& operand_buffers,
                         const std::vector<std::string>& operands) {
  for (int tensor : reads) {
    const auto buffer = operand_buffers.find(tensor);
    if (buffer == operand_buffers.end()) continue;
    const Placed read = PlacedThrough(tensor, operands);
    if (mapping_.size() <= static_cast<size_t>(buffer->second)) {
      mapping_.resize(buffer->second + 1, DROP);
    }
    // In fast memory: a prefetch's first reader copies it, later ones (and
    // readers of a value made in fast memory) find it there.
    Action action = DROP;
    if (read.space != 0) {
      action = NO_COPY;
      if (read.copy >= 0 && transfers_read_.insert(read.copy).second) {
        action = COPY;
      }
    }
    mapping_[buffer->second] = action;
  }
}

void Builder::DecideOutputs() {
  mapping_.resize(buffers_.size(), DROP);
  home_space_.resize(tensors_.size(), 0);
  // Written back: a transfer of the value as defined to memory space 0
  // whose done comes at least one instruction after its start.
  absl::flat_hash_set<int> written_back;
  for (const Transfer& transfer : transfers_) {
    if (transfer.tensor >= 0 && transfer.from.copy < 0 &&
        transfer.from.space != 0 && transfer.to_space == 0 &&
        transfer.done_step > transfer.start_step) {
      written_back.insert(transfer.tensor);
    }
  }
  for (size_t b = 0; b < buffers_.size(); ++b) {
    if (!buffers_[b].is_output) continue;
    const int tensor = buffers_[b].tensor;
    mapping_[b] = home_space_[tensor] == 0          ? DROP
                  : written_back.contains(tensor)   ? COPY
                                                    : NO_COPY;
  }
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
  ApplyInPlace(live_end);
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
    if (marker_steps_.contains(pending.time)) buffer->set_benefit_us(0);
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
  provenance["loops"] = std::to_string(while_loops_);  // bodies aside
  if (loop_copies_ > 0) {
    provenance["loop_copies"] = std::to_string(loop_copies_);
  }
  if (in_place_refused_ > 0) {
    provenance["in_place_copies"] = std::to_string(in_place_refused_);
  }
  if (memory_space_arrays_ > 0) {
    Warn(memory_space_line_,
         absl::StrCat(memory_space_arrays_,
                      " arrays carry a memory-space annotation S(n) from an "
                      "earlier memory-space assignment: read as the module's "
                      "own placement (--mapping-out), not as the workload"));
  }
  if (conditionals_laid_out_ > 0) {
    provenance["conditionals_as_slowest_branch"] =
        std::to_string(conditionals_laid_out_);
    Warn(first_conditional_line_,
         absl::StrCat(conditionals_laid_out_,
                      " conditionals modelled as their slowest branch (its "
                      "instructions and buffers run every time; the branch "
                      "index is not read)"));
  }
  for (const std::string& warning : cost_.warnings()) {
    warnings_.push_back(warning);
  }
  provenance["warnings"] = std::to_string(warnings_.size());
  HloImportTrace& trace = result->trace;
  trace.step_flat = std::move(step_flat_);
  for (const Tensor& tensor : tensors_) {
    trace.tensor_flat.push_back(tensor.def_flat);
    trace.tensor_leaf.push_back(tensor.def_leaf);
    trace.tensor_bytes.push_back(tensor.size);
  }
  for (const PendingBuffer& buffer : buffers_) {
    trace.buffer_tensor.push_back(buffer.tensor);
  }
  trace.leaves = std::move(leaves_);
  DecideOutputs();
  result->mapping = std::move(mapping_);
  result->placement_transfers = static_cast<int>(transfers_.size());
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
  LastUses();
  // A conditional's laid-out branch is a one-trip loop of its own: its
  // instructions run in a computation of their own, and no copy runs into
  // or out of it. A branch that does no work (views, constants, or only
  // its parameter) is one marker step that takes no time: the program
  // names its value only after it, and no copy may start before.
  std::vector<const FlatConditional*> by_first;
  for (const FlatConditional& conditional : conditionals_) {
    by_first.push_back(&conditional);
  }
  std::stable_sort(by_first.begin(), by_first.end(),
                   [](const FlatConditional* a, const FlatConditional* b) {
                     if (a->first != b->first) return a->first < b->first;
                     const bool a_empty = a->last < a->first;
                     const bool b_empty = b->last < b->first;
                     if (a_empty != b_empty) return a_empty;  // placed first
                     return a->last > b->last;  // the enclosing one first
                   });
  std::vector<std::pair<const FlatConditional*, int>> open;  // first step
  size_t next = 0;
  auto close = [&](const FlatConditional& conditional, int first_step) {
    if (first_step == workload_.instructions_size()) {
      const int t = workload_.instructions_size();
      step_flat_.push_back(-1);
      Instruction* marker = workload_.add_instructions();
      marker->set_name(absl::StrCat(conditional.name, kBranchSuffix));
      marker->set_opcode("conditional");
      marker->set_supply_us(0);
      marker_steps_.insert(t);
    }
    Loop* branch = workload_.add_loops();
    branch->set_name(absl::StrCat(conditional.name, kBranchSuffix));
    branch->set_trip_count(1);
    branch->set_first_step(first_step);
    branch->set_last_step(workload_.instructions_size() - 1);
  };
  const int num_flat = static_cast<int>(entry_.instructions.size());
  for (int f = 0; f <= num_flat; ++f) {
    current_flat_ = f;
    for (; next < by_first.size() && by_first[next]->first == f; ++next) {
      if (by_first[next]->last < f) {
        close(*by_first[next], workload_.instructions_size());
      } else {
        open.emplace_back(by_first[next], workload_.instructions_size());
      }
    }
    if (f == num_flat) break;
    RETURN_IF_ERROR(Visit(entry_.instructions[f]));
    while (!open.empty() && open.back().first->last == f) {
      close(*open.back().first, open.back().second);
      open.pop_back();
    }
  }
  current_flat_ = -1;
  if (workload_.instructions_size() ==
      static_cast<int>(marker_steps_.size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        options_.source_name, ":", entry_.line, ": entry computation '",
        entry_.name,
        "' does no work (only parameters, constants and views): nothing to "
        "import"));
  }
  for (const auto& [name, trips] : options_.trip_counts) {
    if (!trip_counts_used_.contains(name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          options_.source_name, ": trip count given for '", name,
          "', which is not a while loop laid out in the program"));
    }
    if (trips < 1 || trips > kMaxTripCount) {
      return absl::InvalidArgumentError(
          absl::StrCat(options_.source_name, ": trip count of '", name,
                       "' must be in [1, 2^31], got ", trips));
    }
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
