#include "common/hlo/hlo_module_parser.h"

#include <cctype>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/hlo/hlo_lexer.h"
#include "common/hlo/hlo_opcodes.h"

namespace mmapzero::hlo {
namespace {

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
         c == '-' || c == '%' || c == '$';
}

// A section of the stack-frame table that current JAX dumps print between
// the header and the first computation ("FileNames", "FunctionNames",
// "FileLocations", "StackFrames"): a capitalised word alone on its line.
// Its entries each start with their number.
bool IsMetadataSectionHeader(std::string_view line) {
  if (line.empty() || !std::isupper(static_cast<unsigned char>(line[0]))) {
    return false;
  }
  for (char c : line) {
    if (!std::isalpha(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string_view WithoutPercent(std::string_view name) {
  if (!name.empty() && name.front() == '%') name.remove_prefix(1);
  return name;
}

// The leading name token of `text`, e.g. "%add.1" of "%add.1 = ...".
std::string_view LeadingName(std::string_view text) {
  size_t end = 0;
  while (end < text.size() && IsNameChar(text[end])) ++end;
  return text.substr(0, end);
}

class LineError {
 public:
  LineError(std::string_view source, int line)
      : prefix_(absl::StrCat(std::string(source), ":", line, ": ")) {}
  absl::Status operator()(std::string_view what, std::string_view text) const {
    if (text.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(prefix_, std::string(what)));
    }
    std::string quoted(text.substr(0, 80));
    if (text.size() > 80) quoted += "...";
    return absl::InvalidArgumentError(
        absl::StrCat(prefix_, std::string(what), ": \"", quoted, "\""));
  }

 private:
  std::string prefix_;
};

absl::Status ParseOperands(std::string_view inner, const LineError& error,
                           HloInstruction* instruction) {
  if (instruction->opcode == "parameter" || instruction->opcode == "constant") {
    instruction->literal = std::string(Trim(inner));
    return absl::OkStatus();
  }
  for (std::string_view item : SplitTopLevel(inner, ',')) {
    const size_t space = item.find_last_of(" \t");
    std::string_view name =
        space == std::string_view::npos ? item : item.substr(space + 1);
    name = WithoutPercent(name);
    if (name.empty() || LeadingName(name).size() != name.size()) {
      return error("bad operand", item);
    }
    instruction->operands.emplace_back(name);
  }
  return absl::OkStatus();
}

absl::Status ParseAttributes(std::string_view rest, const LineError& error,
                             HloInstruction* instruction) {
  rest = Trim(rest);
  if (rest.empty()) return absl::OkStatus();
  if (rest.front() != ',') return error("expected ',' before attributes", rest);
  for (std::string_view item : SplitTopLevel(rest.substr(1), ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      instruction->attributes.emplace_back(std::string(item), "");
    } else {
      instruction->attributes.emplace_back(
          std::string(Trim(item.substr(0, eq))),
          std::string(Trim(item.substr(eq + 1))));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<HloInstruction> ParseInstruction(std::string_view text,
                                                const LineError& error) {
  HloInstruction instruction;
  std::string_view rest = Trim(text);
  if (ConsumePrefix(&rest, "ROOT ")) {
    instruction.is_root = true;
    rest = Trim(rest);
  }
  const std::string_view name = LeadingName(rest);
  rest = Trim(rest.substr(name.size()));
  if (name.empty() || !ConsumePrefix(&rest, "=")) {
    return error("expected 'name = shape opcode(...)'", text);
  }
  instruction.name = std::string(WithoutPercent(name));
  size_t pos = 0;
  auto shape = ParseShape(rest, &pos);
  if (!shape.ok()) return error(std::string(shape.status().message()), text);
  instruction.shape = *std::move(shape);
  rest = Trim(rest.substr(pos));
  const size_t open = rest.find('(');
  const std::string_view opcode =
      Trim(rest.substr(0, std::min(open, rest.size())));
  if (opcode.empty() || open == std::string_view::npos) {
    return error("expected an opcode and '(' after the shape", text);
  }
  if (!IsKnownOpcode(opcode)) {
    return error(absl::StrCat("unknown opcode '", std::string(opcode), "'"),
                 text);
  }
  instruction.opcode = std::string(opcode);
  const size_t close = FindClosing(rest, open);
  if (close == std::string_view::npos) {
    return error("unbalanced brackets in the operand list (truncated line?)",
                 text);
  }
  if (auto status = ParseOperands(rest.substr(open + 1, close - open - 1),
                                  error, &instruction);
      !status.ok()) {
    return status;
  }
  if (auto status =
          ParseAttributes(rest.substr(close + 1), error, &instruction);
      !status.ok()) {
    return status;
  }
  return instruction;
}

absl::Status ParseHeader(std::string_view text, const LineError& error,
                         HloModule* module) {
  std::string_view rest =
      Trim(text.substr(std::string_view("HloModule").size()));
  module->name = std::string(WithoutPercent(LeadingName(rest)));
  if (module->name.empty()) return error("HloModule without a name", text);
  rest = Trim(rest.substr(LeadingName(rest).size()));
  if (rest.empty()) return absl::OkStatus();
  if (rest.front() != ',') return error("expected ',' after the name", text);
  for (std::string_view item : SplitTopLevel(rest.substr(1), ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = Trim(item.substr(0, eq));
    const std::string_view value = Trim(item.substr(eq + 1));
    if (key == "is_scheduled") module->is_scheduled = value == "true";
    if (key == "input_output_alias") {
      auto aliases = ParseAliasList(value);
      if (!aliases.ok()) {
        return error(std::string(aliases.status().message()), value);
      }
      module->input_output_alias = *std::move(aliases);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<HloComputation> StartComputation(std::string_view text,
                                                const LineError& error) {
  HloComputation computation;
  std::string_view rest = Trim(text);
  if (ConsumePrefix(&rest, "ENTRY")) {
    computation.is_entry = true;
    rest = Trim(rest);
  }
  computation.name = std::string(WithoutPercent(LeadingName(rest)));
  if (computation.name.empty()) {
    return error("expected a computation name before '{'", text);
  }
  return computation;
}

absl::Status AddInstruction(HloInstruction instruction, const LineError& error,
                            std::string_view text,
                            HloComputation* computation) {
  const int index = static_cast<int>(computation->instructions.size());
  if (!computation->index.emplace(instruction.name, index).second) {
    return error(absl::StrCat("instruction '", instruction.name,
                              "' defined twice in computation '",
                              computation->name, "'"),
                 text);
  }
  if (instruction.is_root) {
    if (computation->root >= 0) return error("second ROOT instruction", text);
    computation->root = index;
  }
  computation->instructions.push_back(std::move(instruction));
  return absl::OkStatus();
}

absl::Status FinishComputation(HloComputation computation,
                               const LineError& error, std::string_view text,
                               HloModule* module) {
  if (computation.instructions.empty()) {
    return error(absl::StrCat("computation '", computation.name,
                              "' has no instructions"),
                 text);
  }
  if (computation.root < 0) {
    computation.root = static_cast<int>(computation.instructions.size()) - 1;
  }
  const int index = static_cast<int>(module->computations.size());
  if (!module->computation_index.emplace(computation.name, index).second) {
    return error(
        absl::StrCat("computation '", computation.name, "' defined twice"),
        text);
  }
  if (computation.is_entry) {
    if (module->entry >= 0) return error("second ENTRY computation", text);
    module->entry = index;
  }
  module->computations.push_back(std::move(computation));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<HloAlias>> ParseAliasList(std::string_view text) {
  text = Trim(text);
  if (text.empty() || text.front() != '{' ||
      FindClosing(text, 0) != text.size() - 1) {
    return absl::InvalidArgumentError("alias list must be '{...}'");
  }
  std::vector<HloAlias> aliases;
  for (std::string_view entry :
       SplitTopLevel(text.substr(1, text.size() - 2), ',')) {
    const size_t colon = entry.front() == '{' ? FindClosing(entry, 0) : 0;
    const size_t open = entry.find('(', colon);
    const size_t close =
        open == std::string_view::npos ? open : FindClosing(entry, open);
    if (entry.front() != '{' || colon == std::string_view::npos ||
        close == std::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad alias entry \"", std::string(entry), "\""));
    }
    HloAlias alias;
    alias.output_index = IntegersIn(entry.substr(0, colon + 1));
    const std::vector<std::string_view> parts =
        SplitTopLevel(entry.substr(open + 1, close - open - 1), ',');
    const std::vector<int64_t> number =
        parts.empty() ? std::vector<int64_t>{} : IntegersIn(parts[0]);
    if (number.size() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad alias entry \"", std::string(entry), "\""));
    }
    alias.parameter = number[0];
    if (parts.size() > 1) alias.parameter_index = IntegersIn(parts[1]);
    aliases.push_back(std::move(alias));
  }
  return aliases;
}

absl::StatusOr<HloModule> ParseHloModule(std::string_view text,
                                         std::string_view source_name) {
  HloModule module;
  bool in_computation = false;
  bool in_metadata = false;  // a stack-frame table section, skipped
  HloComputation computation;
  int line_number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    ++line_number;
    const std::string stripped = StripComments(text.substr(start, end - start));
    start = end + 1;
    const std::string_view line = Trim(stripped);
    const LineError error(source_name, line_number);
    if (line.empty() || line.substr(0, 2) == "//") continue;
    if (line.substr(0, 10) == "HloModule ") {
      if (module.header_line > 0) return error("second HloModule header", line);
      module.header_line = line_number;
      if (auto status = ParseHeader(line, error, &module); !status.ok()) {
        return status;
      }
      continue;
    }
    if (module.header_line == 0) {
      return error("expected the 'HloModule NAME' header first", line);
    }
    if (!in_computation) {
      if (IsMetadataSectionHeader(line)) {
        in_metadata = true;
        continue;
      }
      if (in_metadata && std::isdigit(static_cast<unsigned char>(line[0]))) {
        continue;
      }
      in_metadata = false;
    }
    if (in_computation) {
      if (line == "}") {
        if (auto status =
                FinishComputation(std::move(computation), error, line, &module);
            !status.ok()) {
          return status;
        }
        computation = HloComputation();
        in_computation = false;
        continue;
      }
      auto instruction = ParseInstruction(line, error);
      if (!instruction.ok()) return instruction.status();
      instruction->line = line_number;
      if (auto status = AddInstruction(*std::move(instruction), error, line,
                                       &computation);
          !status.ok()) {
        return status;
      }
      continue;
    }
    if (line.back() != '{') {
      return error("expected a computation header 'NAME (...) -> SHAPE {'",
                   line);
    }
    auto started = StartComputation(line, error);
    if (!started.ok()) return started.status();
    computation = *std::move(started);
    computation.line = line_number;
    in_computation = true;
  }
  const LineError at_end(source_name, line_number);
  if (in_computation) {
    return at_end(
        absl::StrCat("computation '", computation.name, "' opened at line ",
                     computation.line, " is not closed (truncated module?)"),
        "");
  }
  if (module.header_line == 0) {
    return at_end("no 'HloModule' header (empty or not HLO text)", "");
  }
  if (module.computations.empty()) {
    return at_end("module has no computations (truncated module?)", "");
  }
  if (module.entry < 0) {
    module.entry = static_cast<int>(module.computations.size()) - 1;
  }
  return module;
}

}  // namespace mmapzero::hlo
