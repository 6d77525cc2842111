// mmapctl import: reads the text form of an XLA HLO module and writes it as
// a workload (common/hlo/hlo_importer.h, docs/hlo-import.md). Prints one
// summary line to stdout and each approximation the importer made to
// stderr.
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/workload_summary.h"
#include "common/base/status_macros.h"
#include "common/hlo/hlo_importer.h"
#include "common/workload/hardware_profiles.h"
#include "common/workload/proto_io.h"
#include "common/workload/workload_stats.h"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] =
    "import MODULE.hlo --hardware NAME_OR_FILE --out WORKLOAD "
    "[--memory-size BYTES] [--alignment A]";

absl::StatusOr<hlo::HloImportOptions> ParseOptions(const CommandLine& line) {
  hlo::HloImportOptions options;
  options.source_name = line.positional()[0];
  ASSIGN_OR_RETURN(const std::string hardware, line.GetRequired("hardware", kUsage));
  auto profile = ResolveHardwareProfile(hardware);
  if (!profile.ok()) {
    return FlagError("hardware", profile.status());
  }
  options.hardware = *std::move(profile);
  ASSIGN_OR_RETURN(options.memory_size, line.GetInt("memory-size", 0));
  if (options.memory_size < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--memory-size: must be >= 0 (0: the hardware's), got ",
                     options.memory_size));
  }
  ASSIGN_OR_RETURN(options.alignment, line.GetInt("alignment", 1));
  if (options.alignment < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--alignment: must be >= 1, got ", options.alignment));
  }
  return options;
}

}  // namespace

absl::Status RunImport(const Args& args) {
  ASSIGN_OR_RETURN(
      const CommandLine line,
      CommandLine::Parse(args, {"hardware", "out", "memory-size", "alignment"},
                         {}));
  RETURN_IF_ERROR(line.ExpectPositional(1, kUsage));
  ASSIGN_OR_RETURN(const hlo::HloImportOptions options, ParseOptions(line));
  ASSIGN_OR_RETURN(const std::string out, line.GetRequired("out", kUsage));

  ASSIGN_OR_RETURN(const hlo::HloImportResult result,
                   hlo::ImportHloFile(line.positional()[0], options));
  for (const std::string& warning : result.warnings) {
    std::cerr << "warning: " << warning << "\n";
  }
  RETURN_IF_ERROR(WriteProtoFile(out, result.workload));

  const Workload& workload = result.workload;
  std::cout << WorkloadSummary(out, workload) << ", " << result.warnings.size()
            << " warnings\n";
  if (workload.provenance().count("is_scheduled") > 0 &&
      workload.provenance().at("is_scheduled") != "true") {
    std::cout << "not scheduled: using the entry computation's order\n";
  }
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
