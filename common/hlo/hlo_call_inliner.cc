#include "common/hlo/hlo_call_inliner.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/hlo/hlo_lexer.h"
#include "common/hlo/hlo_program_order.h"

namespace mmapzero::hlo {
namespace {

// Per array leaf of `state`: whether `body`'s ROOT hands the leaf's tuple
// element of the parameter back unchanged.
std::vector<bool> PassesThrough(const HloComputation& body,
                                const HloShape& state) {
  std::vector<bool> same(state.LeafCount(), false);
  const HloInstruction& root = body.instructions[body.root];
  if (!state.IsTuple() || root.opcode != "tuple" ||
      root.operands.size() != state.elements.size()) {
    return same;
  }
  int leaf = 0;
  for (size_t k = 0; k < state.elements.size(); ++k) {
    const int leaves = state.elements[k].LeafCount();
    const HloInstruction* element = body.Find(root.operands[k]);
    const HloInstruction* tuple =
        element == nullptr || element->operands.size() != 1
            ? nullptr
            : body.Find(element->operands[0]);
    const std::string* index =
        element == nullptr ? nullptr : element->Attribute("index");
    if (element != nullptr && element->opcode == "get-tuple-element" &&
        tuple != nullptr && tuple->opcode == "parameter" && index != nullptr &&
        IntegersIn(*index) == std::vector<int64_t>{static_cast<int64_t>(k)}) {
      for (int i = 0; i < leaves; ++i) same[leaf + i] = true;
    }
    leaf += leaves;
  }
  return same;
}

class Flattener {
 public:
  Flattener(const HloModule& module, std::string_view source_name,
            const BranchChooser& choose_branch)
      : module_(module),
        source_name_(source_name),
        choose_branch_(choose_branch) {}

  absl::StatusOr<FlatEntry> Run() {
    const HloComputation& entry = module_.entry_computation();
    flat_.computation.name = entry.name;
    flat_.computation.line = entry.line;
    flat_.computation.is_entry = true;
    ASSIGN_OR_RETURN(const std::string root,
                     Append(entry, /*arguments=*/{}, /*prefix=*/"", 0));
    HloComputation& out = flat_.computation;
    out.root = out.index.at(root);
    out.instructions[out.root].is_root = true;
    return std::move(flat_);
  }

 private:
  absl::Status Error(const HloInstruction& at, const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat(
        source_name_, ":", at.line, ": ", what, " (instruction '", at.name,
        "')"));
  }

  // Appends `computation`'s instructions in program order, its parameters
  // standing for `arguments` (flat names; none for the entry), names
  // prefixed; returns the flat name of its ROOT's value.
  absl::StatusOr<std::string> Append(const HloComputation& computation,
                                     const std::vector<std::string>& arguments,
                                     const std::string& prefix, int depth) {
    if (computation.instructions.empty() || computation.root < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(source_name_, ":", computation.line, ": computation '",
                       computation.name, "' has no instructions"));
    }
    ASSIGN_OR_RETURN(const std::vector<int>* order, OrderOf(computation));
    // This computation's names -> flat names.
    absl::flat_hash_map<std::string, std::string> flat_name;
    for (int i : *order) {
      const HloInstruction& instruction = computation.instructions[i];
      std::vector<std::string> operands;
      operands.reserve(instruction.operands.size());
      for (const std::string& operand : instruction.operands) {
        operands.push_back(flat_name.at(operand));
      }
      if (depth > 0 && instruction.opcode == "parameter") {
        const std::vector<int64_t> number = IntegersIn(instruction.literal);
        if (number.size() != 1 || number[0] < 0 ||
            number[0] >= static_cast<int64_t>(arguments.size())) {
          return Error(instruction,
                       absl::StrCat("parameter(", instruction.literal,
                                    ") of computation '", computation.name,
                                    "' is not one of the call's ",
                                    arguments.size(), " operands"));
        }
        flat_name[instruction.name] = arguments[number[0]];
        continue;
      }
      if (instruction.opcode == "while") {
        ASSIGN_OR_RETURN(const bool laid_out,
                         AppendLoop(computation, instruction, operands, prefix,
                                    depth, &flat_name));
        if (laid_out) continue;
      }
      std::vector<std::string> callee_arguments = operands;
      const HloComputation* callee = nullptr;
      int branch = -1;  // a conditional's laid-out branch
      if (instruction.opcode == "call") {
        const std::string* name = instruction.Attribute("to_apply");
        if (name != nullptr) callee = module_.FindComputation(*name);
      } else if (instruction.opcode == "conditional" && choose_branch_) {
        branch = choose_branch_(instruction);
        const std::vector<std::string> branches =
            ControlFlowComputations(instruction);
        if (branch >= 0 && branch < static_cast<int>(branches.size()) &&
            branch + 1 < static_cast<int>(operands.size())) {
          callee = module_.FindComputation(branches[branch]);
          callee_arguments = {operands[branch + 1]};
          if (callee != nullptr && flat_.conditionals_laid_out++ == 0) {
            flat_.first_conditional_line = instruction.line;
          }
        }
      }
      if (callee != nullptr) {
        if (depth + 1 > kMaxCallDepth) {
          return Error(instruction,
                       absl::StrCat("calls nest deeper than ", kMaxCallDepth,
                                    " levels (a computation that calls "
                                    "itself?)"));
        }
        if (instruction.opcode == "call") ++flat_.inlined_calls;
        const int first = static_cast<int>(flat_.computation.instructions.size());
        ASSIGN_OR_RETURN(std::string result,
                         Append(*callee, callee_arguments,
                                absl::StrCat(prefix, instruction.name, "/"),
                                depth + 1));
        if (instruction.opcode == "conditional") {
          FlatConditional laid_out;
          laid_out.name = absl::StrCat(prefix, instruction.name);
          laid_out.original = &instruction;
          laid_out.operands = operands;
          laid_out.branch = branch;
          laid_out.first = first;
          laid_out.last =
              static_cast<int>(flat_.computation.instructions.size()) - 1;
          laid_out.root = result;
          flat_.conditionals.push_back(std::move(laid_out));
        }
        flat_name[instruction.name] = std::move(result);
        continue;
      }
      HloInstruction copy = instruction;
      copy.name = absl::StrCat(prefix, instruction.name);
      copy.operands = std::move(operands);
      copy.is_root = false;
      flat_name[instruction.name] = copy.name;
      RETURN_IF_ERROR(Push(instruction, std::move(copy)).status());
    }
    const HloInstruction& root = computation.instructions[computation.root];
    return flat_name.at(root.name);
  }

  // Appends `instruction` (named as it will be in the flat entry) and
  // returns its index; `source` is where it came from, for errors.
  absl::StatusOr<int> Push(const HloInstruction& source,
                           HloInstruction instruction) {
    HloComputation& out = flat_.computation;
    const int index = static_cast<int>(out.instructions.size());
    if (index >= kMaxFlatInstructions) {
      return Error(source, absl::StrCat("more than ", kMaxFlatInstructions,
                                        " instructions once calls and loops "
                                        "are laid out"));
    }
    if (!out.index.emplace(instruction.name, index).second) {
      return Error(source, absl::StrCat("inlined as '", instruction.name,
                                        "', a name already taken"));
    }
    out.instructions.push_back(std::move(instruction));
    return index;
  }

  // Lays out `loop` (a while of `computation`) between its entry and exit
  // markers; false when its body or condition is missing (it then stays
  // one instruction).
  absl::StatusOr<bool> AppendLoop(
      const HloComputation& computation, const HloInstruction& loop,
      const std::vector<std::string>& operands, const std::string& prefix,
      int depth, absl::flat_hash_map<std::string, std::string>* flat_name) {
    const std::string* body_name = loop.Attribute("body");
    const std::string* condition_name = loop.Attribute("condition");
    const HloComputation* body =
        body_name == nullptr ? nullptr : module_.FindComputation(*body_name);
    const HloComputation* condition =
        condition_name == nullptr ? nullptr
                                  : module_.FindComputation(*condition_name);
    if (body == nullptr || condition == nullptr || operands.size() != 1) {
      return false;
    }
    if (depth + 1 > kMaxCallDepth) {
      return Error(loop, absl::StrCat("calls and loops nest deeper than ",
                                      kMaxCallDepth, " levels"));
    }
    FlatLoop flat_loop;
    flat_loop.name = absl::StrCat(prefix, loop.name);
    flat_loop.hlo_name = loop.name;
    flat_loop.original = &loop;
    flat_loop.line = loop.line;
    flat_loop.trip_count = LoopTripCount(module_, computation, loop);
    flat_loop.passes_through = PassesThrough(*body, loop.shape);

    HloInstruction entry;
    entry.name = absl::StrCat(flat_loop.name, "/entry");
    entry.shape = loop.shape;
    entry.opcode = std::string(kLoopEntryOpcode);
    entry.operands = operands;
    entry.line = loop.line;
    const std::string entry_name = entry.name;
    ASSIGN_OR_RETURN(flat_loop.entry, Push(loop, std::move(entry)));
    ASSIGN_OR_RETURN(flat_loop.condition_root,
                     Append(*condition, {entry_name},
                            absl::StrCat(flat_loop.name, "/cond/"), depth + 1));
    flat_loop.body_begin =
        static_cast<int>(flat_.computation.instructions.size());
    ASSIGN_OR_RETURN(const std::string result,
                     Append(*body, {entry_name},
                            absl::StrCat(flat_loop.name, "/body/"), depth + 1));
    HloInstruction exit;
    exit.name = flat_loop.name;
    exit.shape = loop.shape;
    exit.opcode = std::string(kLoopExitOpcode);
    exit.operands = {result};
    exit.line = loop.line;
    ASSIGN_OR_RETURN(flat_loop.exit, Push(loop, std::move(exit)));
    (*flat_name)[loop.name] = flat_loop.name;
    flat_.loops.push_back(std::move(flat_loop));
    return true;
  }

  // ProgramOrder of `computation`, worked out once however often it is
  // called.
  absl::StatusOr<const std::vector<int>*> OrderOf(
      const HloComputation& computation) {
    auto it = orders_.find(&computation);
    if (it == orders_.end()) {
      ASSIGN_OR_RETURN(
          std::vector<int> order,
          ProgramOrder(computation, module_.is_scheduled, source_name_));
      it = orders_.emplace(&computation, std::move(order)).first;
    }
    return &it->second;
  }

  const HloModule& module_;
  const std::string source_name_;
  const BranchChooser& choose_branch_;
  absl::flat_hash_map<const HloComputation*, std::vector<int>> orders_;
  FlatEntry flat_;
};

}  // namespace

absl::StatusOr<FlatEntry> FlattenEntry(const HloModule& module,
                                       std::string_view source_name,
                                       const BranchChooser& choose_branch) {
  return Flattener(module, source_name, choose_branch).Run();
}

}  // namespace mmapzero::hlo
