#include "common/hlo/hlo_program_order.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace mmapzero::hlo {
namespace {

absl::Status OrderError(std::string_view source, const HloInstruction& at,
                        const std::string& what) {
  return absl::InvalidArgumentError(
      absl::StrCat(std::string(source), ":", at.line, ": ", what,
                   " (instruction '", at.name, "')"));
}

}  // namespace

absl::StatusOr<std::vector<int>> ProgramOrder(const HloComputation& computation,
                                              bool scheduled,
                                              std::string_view source_name) {
  const int n = static_cast<int>(computation.instructions.size());
  std::vector<std::vector<int>> operands(n);
  for (int i = 0; i < n; ++i) {
    const HloInstruction& instruction = computation.instructions[i];
    for (const std::string& name : instruction.operands) {
      auto it = computation.index.find(name);
      if (it == computation.index.end()) {
        return OrderError(
            source_name, instruction,
            absl::StrCat("operand '", name, "' is not defined in computation '",
                         computation.name, "'"));
      }
      if (scheduled && it->second >= i) {
        return OrderError(source_name, instruction,
                          absl::StrCat("operand '", name,
                                       "' is used before its definition in "
                                       "a scheduled module"));
      }
      operands[i].push_back(it->second);
    }
  }
  std::vector<int> order;
  order.reserve(n);
  if (scheduled) {
    for (int i = 0; i < n; ++i) order.push_back(i);
    return order;
  }
  // Iterative depth-first post-order from each instruction in textual order.
  enum : char { kNew, kOpen, kDone };
  std::vector<char> state(n, kNew);
  std::vector<std::pair<int, size_t>> stack;
  for (int start = 0; start < n; ++start) {
    if (state[start] != kNew) continue;
    stack.emplace_back(start, 0);
    state[start] = kOpen;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < operands[node].size()) {
        const int operand = operands[node][next++];
        if (state[operand] == kOpen) {
          return OrderError(source_name, computation.instructions[node],
                            "operands form a cycle");
        }
        if (state[operand] == kNew) {
          state[operand] = kOpen;
          stack.emplace_back(operand, 0);
        }
        continue;
      }
      state[node] = kDone;
      order.push_back(node);
      stack.pop_back();
    }
  }
  return order;
}

}  // namespace mmapzero::hlo
