// Imports the text form of an XLA HLO module (what JAX and TensorFlow write
// with XLA_FLAGS=--xla_dump_to=DIR) as an MMapGame workload: instructions in
// program order, one buffer per operand and per output, tensors, live
// ranges, alias groups and roofline latencies from a hardware profile.
// docs/hlo-import.md says what is modelled and what is approximated.
#ifndef MMAPZERO_COMMON_HLO_HLO_IMPORTER_H_
#define MMAPZERO_COMMON_HLO_HLO_IMPORTER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "proto/workload.pb.h"

namespace mmapzero::hlo {

struct HloImportOptions {
  HardwareProfile hardware;  // roofline terms and fast-memory size
  int64_t memory_size = 0;   // 0: hardware.fast_memory_bytes
  int64_t alignment = 1;
  std::string source_name;   // for messages and provenance, e.g. the path
  // Trip counts the user gives, by the while's name in the module (without
  // '%'): they override what the importer reads from the module, e.g. for a
  // generation loop that runs until an end token.
  absl::flat_hash_map<std::string, int64_t> trip_counts;
};

struct HloImportResult {
  Workload workload;
  // Approximations made (unsupported constructs modelled roughly), each
  // naming the line; never errors.
  std::vector<std::string> warnings;
};

// Errors name the source, the line and what is wrong.
absl::StatusOr<HloImportResult> ImportHloText(std::string_view text,
                                              const HloImportOptions& options);
absl::StatusOr<HloImportResult> ImportHloFile(const std::string& path,
                                              const HloImportOptions& options);

}  // namespace mmapzero::hlo

#endif  // MMAPZERO_COMMON_HLO_HLO_IMPORTER_H_
