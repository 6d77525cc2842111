#include "common/hlo/hlo_module.h"

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
