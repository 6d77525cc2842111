#include "common/hlo/hlo_importer.h"

namespace mmapzero::hlo {

// Placeholder until the importer lands; its own files replace this one.
absl::StatusOr<HloImportResult> ImportHloText(std::string_view,
                                              const HloImportOptions&) {
  return absl::UnimplementedError("HLO import not available yet");
}
absl::StatusOr<HloImportResult> ImportHloFile(const std::string&,
                                              const HloImportOptions&) {
  return absl::UnimplementedError("HLO import not available yet");
}

}  // namespace mmapzero::hlo
