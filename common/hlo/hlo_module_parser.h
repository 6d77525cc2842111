// Parses the text form of an HLO module (what `--xla_dump_to` writes and
// HloModule::ToString prints) into an HloModule. Accepts the current style
// (`name = shape opcode(op1, op2), attr=value`) and the older one with
// `%`-prefixed names and operand shapes printed inline
// (`%x = f32[4]{0} add(f32[4]{0} %a, f32[4]{0} %b)`). Comments (`/*...*/`,
// `//` lines), metadata strings and backend_config blobs (JSON or MLIR
// attribute dictionaries) are skipped with their nested braces.
//
// Errors are InvalidArgument "SOURCE:LINE: what is wrong: \"text\"" for a
// truncated module, an unknown opcode, a bad shape, an undefined operand is
// reported by the importer (it needs the program order).
#ifndef MMAPZERO_COMMON_HLO_HLO_MODULE_PARSER_H_
#define MMAPZERO_COMMON_HLO_HLO_MODULE_PARSER_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/hlo/hlo_module.h"

namespace mmapzero::hlo {

absl::StatusOr<HloModule> ParseHloModule(std::string_view text,
                                         std::string_view source_name);

// Parses `{ {0}: (0, {}, may-alias), ... }` (input_output_alias) or
// `{{}: (1, {})}` (output_to_operand_aliasing).
absl::StatusOr<std::vector<HloAlias>> ParseAliasList(std::string_view text);

}  // namespace mmapzero::hlo

#endif  // MMAPZERO_COMMON_HLO_HLO_MODULE_PARSER_H_
