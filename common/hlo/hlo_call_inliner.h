// The program the importer models: the entry computation with every `call`
// replaced by the instructions of the computation it calls, as XLA's call
// inliner and its flattened schedules do, and every `while` laid out once
// at its place, as XLA's memory-space assignment sees a loop in its
// flattened schedule:
//  - Calls nest: a called computation's own calls are inlined too.
//  - A while becomes `<while>/entry` (a loop-entry marker that reads the
//    loop state), its condition's and then its body's instructions (their
//    parameter standing for the entry's value), and `<while>` (a loop-exit
//    marker that reads the body's ROOT and stands for the loop's result).
//    FlatEntry::loops records the markers and the trip count; loops nest.
//  - Each called computation runs in its own program order
//    (hlo_program_order.h: the schedule when the module is scheduled), so
//    the flattened order is the module's schedule wherever it has one.
//  - The callee's parameters become the caller's operands and the call's
//    result becomes the callee's ROOT: views and aliases pass through.
//  - Inlined instructions are named `<call>/<name>` (`<while>/cond/<name>`,
//    `<while>/body/<name>` inside a loop) and keep their own source line,
//    so costs and warnings point at the code that does them.
//  - A `conditional` becomes the instructions of the branch `choose_branch`
//    picks (the slowest, for the importer), inlined like a call with the
//    branch's operand; the branch index or predicate it reads is dropped.
// `fusion` (one kernel in XLA) and async computations stay one instruction
// each, and so does a while whose body or condition is missing, or a
// conditional without a branch picked (docs/hlo-import.md says how they
// are costed; the builder warns where that approximates).
#ifndef MMAPZERO_COMMON_HLO_HLO_CALL_INLINER_H_
#define MMAPZERO_COMMON_HLO_HLO_CALL_INLINER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/hlo/hlo_module.h"
#include "common/hlo/hlo_trip_count.h"

namespace mmapzero::hlo {

// Calls nested deeper than this are an error (HLO has no recursion, so
// deeper nesting means a malformed or hostile module).
inline constexpr int kMaxCallDepth = 64;
// At most this many instructions after inlining (a computation called from
// many places is copied at each): more is an error naming the call.
inline constexpr int64_t kMaxFlatInstructions = int64_t{1} << 22;

// Opcodes of the loop markers; no HLO text can spell them (the parser
// accepts XLA's opcodes only).
inline constexpr std::string_view kLoopEntryOpcode = "mmapzero.loop-entry";
inline constexpr std::string_view kLoopExitOpcode = "mmapzero.loop-exit";

// One while loop laid out in the flat entry.
struct FlatLoop {
  std::string name;  // the loop-exit marker's name: the while's flat name
  std::string hlo_name;  // the while's name in its computation
  const HloInstruction* original = nullptr;  // the while in the module
  int line = 0;      // the while's line
  TripCount trip_count;
  int entry = 0;     // index of the loop-entry marker in the flat entry
  int body_begin = 0;  // index of the body's first instruction: the
                       // condition's are (entry, body_begin)
  int exit = 0;      // index of the loop-exit marker
  std::string condition_root;  // flat name of the condition's value
  // Per array leaf of the loop state: the body's ROOT passes element k of
  // its parameter through unchanged (a tuple whose k-th operand is
  // get-tuple-element(parameter), index=k).
  std::vector<bool> passes_through;
};

// One conditional laid out as the branch its chooser picked.
struct FlatConditional {
  std::string name;  // the conditional's flat name (not an instruction)
  const HloInstruction* original = nullptr;  // the conditional in the module
  std::vector<std::string> operands;  // its operands' flat names
  int branch = 0;    // the branch laid out (ControlFlowComputations order)
  int first = 0;     // flat indices of the branch's instructions:
  int last = -1;     //   [first, last], empty when first > last
  std::string root;  // flat name of the branch's value (the conditional's)
};

struct FlatEntry {
  // The entry's name, its instructions in program order (index order), with
  // `index` and `root` set; parameters are the entry's own.
  HloComputation computation;
  int64_t inlined_calls = 0;  // call sites replaced, nested ones included
  std::vector<FlatLoop> loops;  // inner loops before the loops around them
  int64_t conditionals_laid_out = 0;  // replaced by one of their branches
  int first_conditional_line = 0;     // the first of those
  std::vector<FlatConditional> conditionals;  // inner ones first
};

// Which branch of a conditional to lay out (an index into
// ControlFlowComputations), or -1 to keep it one instruction.
using BranchChooser = std::function<int(const HloInstruction& conditional)>;

// Errors (InvalidArgument) name the source, line and call: an operand order
// error inside a called computation, a parameter number outside the call's
// operands, calls and loops nested deeper than kMaxCallDepth (or calling
// themselves), and a program over kMaxFlatInstructions. A call to a computation that is
// not in the module stays one instruction (the cost model warns).
absl::StatusOr<FlatEntry> FlattenEntry(
    const HloModule& module, std::string_view source_name,
    const BranchChooser& choose_branch = nullptr);

}  // namespace mmapzero::hlo

#endif  // MMAPZERO_COMMON_HLO_HLO_CALL_INLINER_H_
