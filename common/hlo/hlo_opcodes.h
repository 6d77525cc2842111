// What the importer needs to know about each HLO opcode: whether it exists
// (an unknown opcode is an error naming the line), whether it is a *view*
// that names data another instruction defined (no work, no buffer of its
// own), and its cost class for the roofline (hlo_cost.h).
#ifndef MMAPZERO_COMMON_HLO_HLO_OPCODES_H_
#define MMAPZERO_COMMON_HLO_HLO_OPCODES_H_

#include <string_view>

namespace mmapzero::hlo {

enum class OpcodeClass {
  kSource,        // parameter, constant: data present before the program
  kView,          // tuple, get-tuple-element, bitcast, *-done, ...: aliases
  kNoWork,        // after-all, partition-id: bookkeeping, no real work
  kElementwise,   // one operation per output element
  kDataMovement,  // copies and rearranges bytes: no arithmetic
  kReduction,     // one operation per input element
  kContraction,   // dot, convolution: FLOPs from dimension numbers
  kControlFlow,   // while, conditional, call: cost of the called code
  kFusion,        // fusion: FLOPs of the fused computation
  kCustomCall,    // custom-call: costed from its target and attributes
  kCollective,    // all-reduce, all-gather, ...: bytes only
};

// False when `opcode` is not an HLO opcode.
bool IsKnownOpcode(std::string_view opcode);

// The class of a known opcode (kElementwise for unknown ones).
OpcodeClass ClassOf(std::string_view opcode);

// The halves of an asynchronous pair: a start (`*-start`, `send`, `recv`)
// does the work, its done (`*-done`) names the result.
bool IsAsyncStart(std::string_view opcode);
bool IsAsyncDone(std::string_view opcode);

}  // namespace mmapzero::hlo

#endif  // MMAPZERO_COMMON_HLO_HLO_OPCODES_H_
