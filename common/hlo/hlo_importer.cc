#include "common/hlo/hlo_importer.h"

#include "absl/strings/str_cat.h"
#include "common/base/read_file.h"
#include "common/base/status_macros.h"
#include "common/hlo/hlo_module_parser.h"
#include "common/hlo/hlo_call_inliner.h"
#include "common/hlo/hlo_cost.h"
#include "common/hlo/hlo_workload_builder.h"
#include "common/workload/workload_check.h"

namespace mmapzero::hlo {

absl::StatusOr<std::unique_ptr<HloImport>> ImportHloModule(
    std::string_view text, const HloImportOptions& options) {
  HloImportOptions effective = options;
  if (effective.source_name.empty()) effective.source_name = "<hlo text>";
  if (effective.alignment < 1) effective.alignment = 1;
  auto import = std::make_unique<HloImport>();
  ASSIGN_OR_RETURN(import->module, ParseHloModule(text, effective.source_name));
  // A conditional runs as its slowest branch: the latency it can save is
  // at most that branch's (and so is what the slowest branch's buffers
  // compete for).
  HloCostModel cost(import->module, effective.hardware, effective.source_name);
  ASSIGN_OR_RETURN(
      import->flat,
      FlattenEntry(import->module, effective.source_name,
                   [&cost](const HloInstruction& conditional) {
                     return cost.SlowestBranch(conditional);
                   }));
  ASSIGN_OR_RETURN(import->result,
                   BuildWorkload(import->module, import->flat, effective));
  if (import->result.workload.buffers_size() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        effective.source_name,
        ": the module has no buffer to place in the fast memory, so there is "
        "nothing to decide"));
  }
  if (absl::Status status = CheckWorkload(import->result.workload);
      !status.ok()) {
    return absl::InternalError(
        absl::StrCat(effective.source_name,
                     ": the imported workload fails its checks (an importer "
                     "bug): ",
                     status.message()));
  }
  return import;
}

absl::StatusOr<HloImportResult> ImportHloText(std::string_view text,
                                              const HloImportOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloImport> import,
                   ImportHloModule(text, options));
  return std::move(import->result);
}

absl::StatusOr<HloImportResult> ImportHloFile(const std::string& path,
                                              const HloImportOptions& options) {
  ASSIGN_OR_RETURN(const std::string text, ReadWholeFile(path));
  HloImportOptions effective = options;
  if (effective.source_name.empty()) effective.source_name = path;
  return ImportHloText(text, effective);
}

bool IsComputationLoop(std::string_view loop_name) {
  return loop_name.ends_with(kBodySuffix) ||
         loop_name.ends_with(kBranchSuffix);
}

}  // namespace mmapzero::hlo
