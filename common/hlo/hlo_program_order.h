// The order in which a computation's instructions run: the schedule when the
// module is scheduled (`is_scheduled=true`: the textual order is the
// schedule), otherwise a topological order that keeps the textual order
// wherever the operands allow (XLA prints computations in post-order, so for
// its dumps this is the textual order too).
#ifndef MMAPZERO_COMMON_HLO_HLO_PROGRAM_ORDER_H_
#define MMAPZERO_COMMON_HLO_HLO_PROGRAM_ORDER_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/hlo/hlo_module.h"

namespace mmapzero::hlo {

// Indices into computation.instructions. Errors name the source and line of
// an operand that is not defined in the computation, of a use before the
// definition in a scheduled module, and of a cycle.
absl::StatusOr<std::vector<int>> ProgramOrder(const HloComputation& computation,
                                              bool scheduled,
                                              std::string_view source_name);

}  // namespace mmapzero::hlo

#endif  // MMAPZERO_COMMON_HLO_HLO_PROGRAM_ORDER_H_
