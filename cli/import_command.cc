// mmapctl import: reads the text form of an XLA HLO module and writes it as
// a workload (common/hlo/hlo_importer.h, docs/hlo-import.md). Prints one
// summary line to stdout and each approximation the importer made to
// stderr.
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/command_line.h"
#include "cli/commands.h"
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

absl::StatusOr<std::string> RequiredFlag(const CommandLine& line,
                                         const std::string& flag) {
  if (!line.Has(flag)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, " is required; usage: mmapctl ", kUsage));
  }
  return line.GetString(flag, "");
}

absl::StatusOr<hlo::HloImportOptions> ParseOptions(const CommandLine& line) {
  hlo::HloImportOptions options;
  options.source_name = line.positional()[0];
  ASSIGN_OR_RETURN(const std::string hardware, RequiredFlag(line, "hardware"));
  auto profile = ResolveHardwareProfile(hardware);
  if (!profile.ok()) {
    return absl::Status(
        profile.status().code(),
        absl::StrCat("--hardware: ", profile.status().message()));
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

std::string Mib(int64_t bytes) {
  return absl::StrFormat("%.1f MiB", static_cast<double>(bytes) / (1 << 20));
}

}  // namespace

absl::Status RunImport(const Args& args) {
  ASSIGN_OR_RETURN(
      const CommandLine line,
      CommandLine::Parse(args, {"hardware", "out", "memory-size", "alignment"},
                         {}));
  RETURN_IF_ERROR(line.ExpectPositional(1, kUsage));
  ASSIGN_OR_RETURN(const hlo::HloImportOptions options, ParseOptions(line));
  ASSIGN_OR_RETURN(const std::string out, RequiredFlag(line, "out"));

  ASSIGN_OR_RETURN(const hlo::HloImportResult result,
                   hlo::ImportHloFile(line.positional()[0], options));
  for (const std::string& warning : result.warnings) {
    std::cerr << "warning: " << warning << "\n";
  }
  RETURN_IF_ERROR(WriteProtoFile(out, result.workload));

  const Workload& workload = result.workload;
  const WorkloadStats stats = ComputeWorkloadStats(workload);
  std::cout << absl::StrFormat(
      "%s: %s, %d instructions, %d buffers, %d tensors, %d alias groups, "
      "peak live %s = %.2fx memory %s, %d warnings\n",
      out, workload.name(), stats.num_instructions, stats.num_buffers,
      stats.num_tensors, stats.num_alias_groups, Mib(stats.peak_live_bytes),
      static_cast<double>(stats.peak_live_bytes) /
          static_cast<double>(workload.memory_size()),
      Mib(workload.memory_size()), result.warnings.size());
  if (workload.provenance().count("is_scheduled") > 0 &&
      workload.provenance().at("is_scheduled") != "true") {
    std::cout << "not scheduled: using the entry computation's order\n";
  }
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
