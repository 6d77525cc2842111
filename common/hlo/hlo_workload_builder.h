// Builds the MMapGame workload of a parsed HLO module's entry computation
// (docs/hlo-import.md):
//  - every instruction of the entry, called computations inlined, that does
//    work is one game instruction, in program order; parameters, constants and bookkeeping ops (after-all,
//    partition-id) hold data from the start; tuple, get-tuple-element,
//    bitcast and the `*-done` halves of async pairs are views that name data
//    defined elsewhere, so they add neither instructions nor buffers;
//  - a tensor is one array leaf of an HLO value after views are resolved;
//    its live range runs from its definition (0 for data present at the
//    start) to its last use, or to the end for the module's outputs;
//  - each instruction gets one operand buffer per distinct tensor it reads
//    and one output buffer per tensor it defines; zero-byte tensors (tokens,
//    empty arrays) get none;
//  - an async pair (`*-start` ... `*-done`) is one operation: the start is
//    the instruction, and what it reads stays live until the done;
//  - a while loop is laid out once, its condition and body a loop with the
//    trip count, and the body a one-trip loop "<while>/body" inside it; a
//    conditional is laid out as its slowest branch, a one-trip loop
//    "<conditional>/branch" (the one-trip loops mark the computations
//    that an export prints: no copy crosses their boundaries);
//  - alias groups tie the operand and output buffers that XLA places in one
//    allocation: dynamic-update-slice and scatter (in place), while-loop
//    state, output_to_operand_aliasing, and the module's input_output_alias.
#ifndef MMAPZERO_COMMON_HLO_HLO_WORKLOAD_BUILDER_H_
#define MMAPZERO_COMMON_HLO_HLO_WORKLOAD_BUILDER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "common/hlo/hlo_call_inliner.h"
#include "common/hlo/hlo_importer.h"
#include "common/hlo/hlo_module.h"

namespace mmapzero::hlo {

// `entry`: the module's entry with its calls inlined, in program order
// (hlo_call_inliner.h). The workload is not checked here.
absl::StatusOr<HloImportResult> BuildWorkload(const HloModule& module,
                                              const FlatEntry& entry,
                                              const HloImportOptions& options);

}  // namespace mmapzero::hlo

#endif  // MMAPZERO_COMMON_HLO_HLO_WORKLOAD_BUILDER_H_
