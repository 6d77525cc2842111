#include "common/hlo/hlo_trip_count.h"

#include <optional>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/hlo/hlo_lexer.h"

namespace mmapzero::hlo {
namespace {

// XLA's trip counts fit easily; beyond this the loop is treated as unknown.
constexpr int64_t kMaxTrips = int64_t{1} << 31;

std::string AttributeOr(const HloInstruction& instruction,
                        std::string_view key) {
  const std::string* value = instruction.Attribute(key);
  return value == nullptr ? std::string() : *value;
}

// The integer value of a scalar integer constant, or nullopt.
std::optional<int64_t> ConstantValue(const HloInstruction* instruction) {
  if (instruction == nullptr || instruction->opcode != "constant") {
    return std::nullopt;
  }
  const std::vector<int64_t> values = IntegersIn(instruction->literal);
  if (values.size() != 1) return std::nullopt;
  const std::string_view text = Trim(instruction->literal);
  if (text.find_first_of(".eE") != std::string_view::npos) return std::nullopt;
  return values[0];
}

// The tuple index of a get-tuple-element of the computation's parameter.
std::optional<int64_t> CounterIndex(const HloComputation& condition,
                                    const HloInstruction* instruction) {
  if (instruction == nullptr || instruction->opcode != "get-tuple-element" ||
      instruction->operands.size() != 1) {
    return std::nullopt;
  }
  const HloInstruction* tuple = condition.Find(instruction->operands[0]);
  if (tuple == nullptr || tuple->opcode != "parameter") return std::nullopt;
  const std::string* index = instruction->Attribute("index");
  const std::vector<int64_t> path =
      index == nullptr ? std::vector<int64_t>{} : IntegersIn(*index);
  if (path.size() != 1) return std::nullopt;
  return path[0];
}

struct CounterBound {
  int64_t index = 0;  // the counter's element of the loop state
  int64_t bound = 0;
  std::string direction;  // as if written `counter DIRECTION bound`
};

// The constant the while's operand tuple gives element `index`.
std::optional<int64_t> InitialValue(const HloComputation& caller,
                                    const HloInstruction& loop,
                                    int64_t index) {
  if (loop.operands.size() != 1) return std::nullopt;
  const HloInstruction* init = caller.Find(loop.operands[0]);
  if (init == nullptr || init->opcode != "tuple" || index < 0 ||
      index >= static_cast<int64_t>(init->operands.size())) {
    return std::nullopt;
  }
  return ConstantValue(caller.Find(init->operands[index]));
}

// A constant, or an element of the loop state that starts as one (a bound
// the loop carries along, as Keras's generate loops do).
std::optional<int64_t> BoundValue(const HloComputation& condition,
                                  const HloComputation& caller,
                                  const HloInstruction& loop,
                                  const HloInstruction* instruction) {
  if (std::optional<int64_t> value = ConstantValue(instruction)) return value;
  const std::optional<int64_t> element = CounterIndex(condition, instruction);
  if (!element) return std::nullopt;
  return InitialValue(caller, loop, *element);
}

// `counter OP bound` or `bound OP counter`.
std::optional<CounterBound> ReadCompare(const HloComputation& condition,
                                        const HloComputation& caller,
                                        const HloInstruction& loop,
                                        const HloInstruction& compare) {
  if (compare.opcode != "compare" || compare.operands.size() != 2) {
    return std::nullopt;
  }
  std::string direction = AttributeOr(compare, "direction");
  const HloInstruction* lhs = condition.Find(compare.operands[0]);
  const HloInstruction* rhs = condition.Find(compare.operands[1]);
  std::optional<int64_t> index = CounterIndex(condition, lhs);
  std::optional<int64_t> bound = BoundValue(condition, caller, loop, rhs);
  if (!index || !bound) {
    index = CounterIndex(condition, rhs);
    bound = BoundValue(condition, caller, loop, lhs);
    if (!index || !bound) return std::nullopt;
    // Swap the operands: `N > counter` is `counter < N`.
    if (direction == "GT") {
      direction = "LT";
    } else if (direction == "GE") {
      direction = "LE";
    } else if (direction == "LT") {
      direction = "GT";
    } else if (direction == "LE") {
      direction = "GE";
    }
  }
  return CounterBound{*index, *bound, direction};
}

}  // namespace

TripCount LoopTripCount(const HloModule& module, const HloComputation& caller,
                        const HloInstruction& loop) {
  TripCount count;
  const std::string config = AttributeOr(loop, "backend_config");
  if (const size_t at = config.find("known_trip_count");
      at != std::string::npos) {
    const std::vector<int64_t> n = IntegersIn(
        std::string_view(config).substr(at, config.find('}', at) - at));
    if (!n.empty() && n.front() >= 1 && n.front() <= kMaxTrips) {
      count.trips = n.front();
      count.known = true;
      count.how = "known_trip_count";
      return count;
    }
  }
  const HloComputation* condition =
      module.FindComputation(AttributeOr(loop, "condition"));
  if (condition == nullptr || condition->root < 0) return count;
  const HloInstruction& root = condition->instructions[condition->root];
  std::optional<CounterBound> compare =
      ReadCompare(*condition, caller, loop, root);
  bool may_stop_early = false;
  if (!compare && root.opcode == "and") {
    for (const std::string& operand : root.operands) {
      const HloInstruction* part = condition->Find(operand);
      if (part == nullptr) continue;
      compare = ReadCompare(*condition, caller, loop, *part);
      if (compare) break;
    }
    may_stop_early = compare.has_value();
  }
  if (!compare) return count;
  const std::optional<int64_t> start =
      InitialValue(caller, loop, compare->index);
  const int64_t from = start.value_or(0);
  int64_t trips = 0;
  if (compare->direction == "LT" || compare->direction == "NE") {
    trips = compare->bound - from;
  } else if (compare->direction == "LE") {
    trips = compare->bound - from + 1;
  } else {
    return count;  // a counter that counts down: not read
  }
  if (trips < 1 || trips > kMaxTrips) return count;
  count.trips = trips;
  count.known = true;
  count.assumed_start = !start.has_value();
  count.upper_bound = may_stop_early;
  count.how = absl::StrCat("counter from ", from,
                           count.assumed_start ? " (assumed)" : "", " to ",
                           compare->bound, compare->direction == "LE" ? " inclusive" : "",
                           may_stop_early ? ", at most: the loop may stop early"
                                          : "");
  return count;
}

}  // namespace mmapzero::hlo
