// The program the importer models: the entry computation with every `call`
// replaced by the instructions of the computation it calls, as XLA's call
// inliner and its flattened schedules do, so that a module whose entry
// hands its work to a called computation (PyTorch/XLA, XLA:GPU command
// buffers) imports with that work, not as one opaque instruction.
//  - Calls nest: a called computation's own calls are inlined too.
//  - Each called computation runs in its own program order
//    (hlo_program_order.h: the schedule when the module is scheduled), so
//    the flattened order is the module's schedule wherever it has one.
//  - The callee's parameters become the caller's operands and the call's
//    result becomes the callee's ROOT: views and aliases pass through.
//  - Inlined instructions are named `<call>/<name>` and keep their own
//    source line, so costs and warnings point at the code that does them.
// `fusion` (one kernel in XLA), `while`, `conditional` and async
// computations stay one instruction each (docs/hlo-import.md says how
// they are costed; the builder warns where that approximates).
#ifndef MMAPZERO_COMMON_HLO_HLO_CALL_INLINER_H_
#define MMAPZERO_COMMON_HLO_HLO_CALL_INLINER_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/hlo/hlo_module.h"

namespace mmapzero::hlo {

// Calls nested deeper than this are an error (HLO has no recursion, so
// deeper nesting means a malformed or hostile module).
inline constexpr int kMaxCallDepth = 64;
// At most this many instructions after inlining (a computation called from
// many places is copied at each): more is an error naming the call.
inline constexpr int64_t kMaxFlatInstructions = int64_t{1} << 22;

struct FlatEntry {
  // The entry's name, its instructions in program order (index order), with
  // `index` and `root` set; parameters are the entry's own.
  HloComputation computation;
  int64_t inlined_calls = 0;  // call sites replaced, nested ones included
};

// Errors (InvalidArgument) name the source, line and call: an operand order
// error inside a called computation, a parameter number outside the call's
// operands, calls nested deeper than kMaxCallDepth (or calling themselves),
// and a program over kMaxFlatInstructions. A call to a computation that is
// not in the module stays one instruction (the cost model warns).
absl::StatusOr<FlatEntry> FlattenEntry(const HloModule& module,
                                       std::string_view source_name);

}  // namespace mmapzero::hlo

#endif  // MMAPZERO_COMMON_HLO_HLO_CALL_INLINER_H_
