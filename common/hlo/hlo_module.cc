#include "common/hlo/hlo_module.h"

#include "common/hlo/hlo_lexer.h"

namespace mmapzero::hlo {
namespace {

std::string_view WithoutPercent(std::string_view name) {
  if (!name.empty() && name.front() == '%') name.remove_prefix(1);
  return name;
}

}  // namespace

const std::string* HloInstruction::Attribute(std::string_view key) const {
  for (const auto& [attribute, value] : attributes) {
    if (attribute == key) return &value;
  }
  return nullptr;
}

std::vector<std::string> ControlFlowComputations(
    const HloInstruction& instruction) {
  std::vector<std::string> names;
  if (instruction.opcode == "while") {
    for (const char* key : {"body", "condition"}) {
      if (const std::string* name = instruction.Attribute(key)) {
        names.push_back(*name);
      }
    }
  } else if (instruction.opcode == "conditional") {
    if (const std::string* branches =
            instruction.Attribute("branch_computations")) {
      std::string_view inner = Trim(*branches);
      if (!inner.empty() && inner.front() == '{') {
        inner = inner.substr(1, inner.size() - 2);
      }
      for (std::string_view name : SplitTopLevel(inner, ',')) {
        names.emplace_back(name);
      }
    }
    for (const char* key : {"true_computation", "false_computation"}) {
      if (const std::string* name = instruction.Attribute(key)) {
        names.push_back(*name);
      }
    }
  }
  return names;
}

bool IsPlacementCopy(const HloInstruction& instruction) {
  if (instruction.opcode != "copy-start" || !instruction.shape.IsTuple() ||
      instruction.shape.elements.size() < 2) {
    return false;
  }
  return instruction.shape.elements[0].memory_space != 0 ||
         instruction.shape.elements[1].memory_space != 0;
}

const HloInstruction* HloComputation::Find(std::string_view wanted) const {
  auto it = index.find(std::string(WithoutPercent(wanted)));
  return it == index.end() ? nullptr : &instructions[it->second];
}

const HloComputation* HloModule::FindComputation(
    std::string_view wanted) const {
  auto it = computation_index.find(std::string(WithoutPercent(wanted)));
  return it == computation_index.end() ? nullptr : &computations[it->second];
}

}  // namespace mmapzero::hlo
