// An HLO module as parsed from its text (hlo_module_parser.h): the header's
// attributes, every computation with its instructions in textual order, and
// which computation is the entry. Attribute values are kept as raw text;
// each consumer reads the few it needs (hlo_cost.h, hlo_importer.cc).
#ifndef MMAPZERO_COMMON_HLO_HLO_MODULE_H_
#define MMAPZERO_COMMON_HLO_HLO_MODULE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "common/hlo/hlo_shape.h"

namespace mmapzero::hlo {

struct HloInstruction {
  std::string name;  // without the '%'
  HloShape shape;
  std::string opcode;
  std::vector<std::string> operands;  // names, without '%'
  std::string literal;  // parameter(N) / constant(...) argument text
  std::vector<std::pair<std::string, std::string>> attributes;
  int line = 0;  // 1-based line in the source text
  bool is_root = false;

  // The raw value of attribute `key`, or nullptr.
  const std::string* Attribute(std::string_view key) const;
};

// The computations a control-flow instruction runs: a while's body and
// condition, a conditional's branches (branch_computations, or
// true_computation and false_computation); none for other opcodes.
std::vector<std::string> ControlFlowComputations(
    const HloInstruction& instruction);

// A copy-start between memory spaces (or within a non-default one): a
// transfer a memory-space assignment placed (XLA's, or `mmapctl
// export`'s), not work of the program. Its copy-done names the same data.
bool IsPlacementCopy(const HloInstruction& instruction);

struct HloComputation {
  std::string name;
  int line = 0;
  bool is_entry = false;
  std::vector<HloInstruction> instructions;
  absl::flat_hash_map<std::string, int> index;  // name -> instructions[i]
  int root = -1;  // the ROOT instruction, or the last one

  const HloInstruction* Find(std::string_view name) const;
};

// One `input_output_alias` entry: output {output_index} may reuse the
// buffer of parameter `parameter` at {parameter_index}. Also the form of a
// custom-call's or fusion's `output_to_operand_aliasing`.
struct HloAlias {
  std::vector<int64_t> output_index;
  int64_t parameter = 0;
  std::vector<int64_t> parameter_index;
};

struct HloModule {
  std::string name;
  int header_line = 0;
  bool is_scheduled = false;
  std::vector<HloAlias> input_output_alias;
  std::vector<HloComputation> computations;
  int entry = -1;
  absl::flat_hash_map<std::string, int> computation_index;

  const HloComputation& entry_computation() const {
    return computations[entry];
  }
  const HloComputation* FindComputation(std::string_view name) const;
};

}  // namespace mmapzero::hlo

#endif  // MMAPZERO_COMMON_HLO_HLO_MODULE_H_
