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

class Flattener {
 public:
  Flattener(const HloModule& module, std::string_view source_name)
      : module_(module), source_name_(source_name) {}

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
      const std::string* callee_name = instruction.opcode == "call"
                                           ? instruction.Attribute("to_apply")
                                           : nullptr;
      const HloComputation* callee =
          callee_name == nullptr ? nullptr
                                 : module_.FindComputation(*callee_name);
      if (callee != nullptr) {
        if (depth + 1 > kMaxCallDepth) {
          return Error(instruction,
                       absl::StrCat("calls nest deeper than ", kMaxCallDepth,
                                    " levels (a computation that calls "
                                    "itself?)"));
        }
        ++flat_.inlined_calls;
        ASSIGN_OR_RETURN(
            std::string result,
            Append(*callee, operands, absl::StrCat(prefix, instruction.name, "/"),
                   depth + 1));
        flat_name[instruction.name] = std::move(result);
        continue;
      }
      HloComputation& out = flat_.computation;
      if (static_cast<int64_t>(out.instructions.size()) >=
          kMaxFlatInstructions) {
        return Error(instruction,
                     absl::StrCat("more than ", kMaxFlatInstructions,
                                  " instructions once calls are inlined"));
      }
      HloInstruction copy = instruction;
      copy.name = absl::StrCat(prefix, instruction.name);
      copy.operands = std::move(operands);
      copy.is_root = false;
      if (!out.index.emplace(copy.name, static_cast<int>(out.instructions.size()))
               .second) {
        return Error(instruction, absl::StrCat("inlined as '", copy.name,
                                               "', a name already taken"));
      }
      flat_name[instruction.name] = copy.name;
      out.instructions.push_back(std::move(copy));
    }
    const HloInstruction& root = computation.instructions[computation.root];
    return flat_name.at(root.name);
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
  absl::flat_hash_map<const HloComputation*, std::vector<int>> orders_;
  FlatEntry flat_;
};

}  // namespace

absl::StatusOr<FlatEntry> FlattenEntry(const HloModule& module,
                                       std::string_view source_name) {
  return Flattener(module, source_name).Run();
}

}  // namespace mmapzero::hlo
