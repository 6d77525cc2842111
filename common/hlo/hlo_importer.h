// Imports the text form of an XLA HLO module (what JAX and TensorFlow write
// with XLA_FLAGS=--xla_dump_to=DIR) as an MMapGame workload: instructions in
// program order, one buffer per operand and per output, tensors, live
// ranges, alias groups and roofline latencies from a hardware profile.
// docs/hlo-import.md says what is modelled and what is approximated.
#ifndef MMAPZERO_COMMON_HLO_HLO_IMPORTER_H_
#define MMAPZERO_COMMON_HLO_HLO_IMPORTER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "common/hlo/hlo_call_inliner.h"
#include "common/hlo/hlo_module.h"
#include "proto/solution.pb.h"
#include "proto/workload.pb.h"

namespace mmapzero::hlo {

struct HloImportOptions {
  HardwareProfile hardware;  // roofline terms and fast-memory size
  int64_t memory_size = 0;   // 0: hardware.fast_memory_bytes
  int64_t alignment = 1;
  std::string source_name;   // for messages and provenance, e.g. the path
  // Trip counts the user gives, by the while's name in the module (without
  // '%'), or by the loop's name in the workload (`w/body/inner`): they
  // override what the importer reads from the module, e.g. for a generation
  // loop that runs until an end token.
  absl::flat_hash_map<std::string, int64_t> trip_counts;
};

// Where each part of the workload came from in the flattened module
// (hlo_call_inliner.h): what `mmapctl export` needs to print the module
// back with a solution's placement (hlo_export.h).
struct HloImportTrace {
  // Per step: its flat instruction, or -1 for a copy the import added where
  // XLA's copy insertion would (loop state), named by the step's name.
  std::vector<int> step_flat;
  // Per tensor of the import (its own numbering; buffer_tensor maps a
  // workload buffer to it): the flat instruction defining it and which of
  // that instruction's array leaves it is; -1 for a copy's output.
  std::vector<int> tensor_flat;
  std::vector<int> tensor_leaf;
  std::vector<int64_t> tensor_bytes;
  // Per workload buffer: its tensor.
  std::vector<int> buffer_tensor;
  // Each flat name's array leaves, as tensors (views resolved).
  absl::flat_hash_map<std::string, std::vector<int>> leaves;
};

struct HloImportResult {
  Workload workload;
  // Approximations made (unsupported constructs modelled roughly), each
  // naming the line; never errors.
  std::vector<std::string> warnings;
  HloImportTrace trace;
  // The placement the module itself carries (memory spaces `S(n)` in its
  // layouts and its copy-start/copy-done transfers), as one action per
  // buffer: Drop where a buffer's value is in memory space 0; for an
  // output in fast memory, Copy when the value is written back (a transfer
  // of it to memory space 0 that spans an instruction), else NoCopy; for an
  // operand in fast memory, Copy for the first reader of a transfer's
  // result, else NoCopy. All Drop for a module without placement.
  std::vector<Action> mapping;
  int placement_transfers = 0;  // copy-start/copy-done pairs read as such
};

// Errors name the source, the line and what is wrong.
absl::StatusOr<HloImportResult> ImportHloText(std::string_view text,
                                              const HloImportOptions& options);

// The import with what it was made from: the parsed module and its
// flattened entry, to which HloImportResult::trace refers.
struct HloImport {
  HloModule module;
  FlatEntry flat;
  HloImportResult result;
};
absl::StatusOr<std::unique_ptr<HloImport>> ImportHloModule(
    std::string_view text, const HloImportOptions& options);
absl::StatusOr<HloImportResult> ImportHloFile(const std::string& path,
                                              const HloImportOptions& options);

// The importer lays out a while's body as a one-trip loop "<while>/body"
// inside the while's loop, and a conditional's branch as a one-trip loop
// "<conditional>/branch": they mark the computations an export prints (no
// copy crosses their boundaries). Whether `loop_name` is one of those
// rather than a while of the module.
inline constexpr char kBodySuffix[] = "/body";
inline constexpr char kBranchSuffix[] = "/branch";
bool IsComputationLoop(std::string_view loop_name);

}  // namespace mmapzero::hlo

#endif  // MMAPZERO_COMMON_HLO_HLO_IMPORTER_H_
