// A solution written back into the HLO module its workload was imported
// from, in the forms a compiler takes (`mmapctl export`,
// docs/hlo-import.md "Exporting a solution"):
//  - the module as XLA prints it after memory-space assignment: scheduled
//    in the workload's order, calls inlined, each while loop with a
//    condition and body of its own, `S(1)` in the layout of every value
//    the solution keeps in fast memory, and a `copy-start`/`copy-done` pair
//    for every prefetch and eviction, placed at the steps the solution's
//    copies occupy;
//  - the fast-memory allocations with their offsets (HLO text has none);
//  - the same decisions as XLA's memory-space-assignment overrides
//    (MsaSortOrderOverrides, PreferredPrefetchOverrides) in text format.
//
// The module's text encodes every decision so that importing it again
// (hlo_mapping.h, `mmapctl import --mapping-out`) gives the solution back:
//  - an output in fast memory has `S(1)` where it is defined; written back
//    (Copy) when a copy pair of that value to memory space 0 ends after at
//    least one instruction (the write-back's steps);
//  - an operand reads a value in memory space 1 (Copy when it is the first
//    reader of a prefetch pair's result, NoCopy otherwise) or in memory
//    space 0 (Drop); where the game reads a value from slow memory that
//    lives only in fast memory, a pair to memory space 0 right before the
//    read stands for that read (a spill: start and done adjacent).
#ifndef MMAPZERO_COMMON_HLO_HLO_EXPORT_H_
#define MMAPZERO_COMMON_HLO_HLO_EXPORT_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/solution.pb.h"
#include "proto/workload.pb.h"

namespace mmapzero::hlo {

struct HloExport {
  std::string mapped_hlo;       // <module>.mapped.hlo
  std::string offsets_csv;      // <module>.offsets.csv
  std::string overrides_txtpb;  // <module>.overrides.txtpb
  int fast_values = 0;          // values given S(1) where defined
  int prefetches = 0;           // copy pairs, by kind
  int write_backs = 0;
  int spills = 0;
};

// `workload` must be what importing `module_text` gives with the
// workload's own hardware, memory size, alignment and loop trip counts
// (refused otherwise, naming the first difference); `solution` must be
// valid for it (refused otherwise). A module with conditionals is refused
// (their branches are not exported yet).
absl::StatusOr<HloExport> ExportSolution(std::string_view module_text,
                                         std::string_view source_name,
                                         const Workload& workload,
                                         const Solution& solution);

// OK when `got` is the program `expected` is, names aside: the same
// instructions (latency models, supplies), buffers (sizes, uses, tensors,
// alias groups, live ranges) and loops. Else InvalidArgument naming the
// first difference.
absl::Status CheckSameProgram(const Workload& expected, const Workload& got);

}  // namespace mmapzero::hlo

#endif  // MMAPZERO_COMMON_HLO_HLO_EXPORT_H_
