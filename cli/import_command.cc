// mmapctl import: reads the text form of an XLA HLO module and writes it as
// a workload (common/hlo/hlo_importer.h, docs/hlo-import.md). Prints one
// summary line to stdout and each approximation the importer made to
// stderr. A `.csv` file is a MiniMalloc buffer-packing instance instead
// (common/workload/minimalloc.h), its capacity from --memory-size or from
// a file name `NAME.CAPACITY.csv`.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/workload_summary.h"
#include "common/base/read_file.h"
#include "common/base/status_macros.h"
#include "common/hlo/hlo_importer.h"
#include "common/hlo/hlo_mapping.h"
#include "common/workload/hardware_profiles.h"
#include "common/workload/minimalloc.h"
#include "common/workload/proto_io.h"
#include "common/workload/workload_stats.h"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] =
    "import MODULE.hlo --hardware NAME_OR_FILE --out WORKLOAD "
    "[--memory-size BYTES] [--alignment A] [--trip-counts WHILE=N,...] "
    "[--mapping-out SOLUTION] | "
    "import INSTANCE.csv --out WORKLOAD [--memory-size BYTES]";

// A MiniMalloc instance: capacity from --memory-size, else from the name.
absl::Status ImportMiniMalloc(const CommandLine& line, const std::string& out) {
  const std::string& path = line.positional()[0];
  ASSIGN_OR_RETURN(int64_t capacity, line.GetInt("memory-size", 0));
  const std::string file = std::filesystem::path(path).filename().string();
  if (capacity == 0) {
    const std::vector<std::string> parts = absl::StrSplit(file, '.');
    if (parts.size() < 3 || !absl::SimpleAtoi(parts[parts.size() - 2],
                                              &capacity)) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": give the capacity with --memory-size (the file name is "
                "not NAME.CAPACITY.csv)"));
    }
  }
  ASSIGN_OR_RETURN(const std::string text, ReadWholeFile(path));
  absl::StatusOr<Workload> workload = WorkloadFromMiniMalloc(
      text, {.name = file, .capacity = capacity});
  if (!workload.ok()) {
    return absl::Status(workload.status().code(),
                        absl::StrCat(path, ": ", workload.status().message()));
  }
  RETURN_IF_ERROR(WriteProtoFile(out, *workload));
  std::cout << WorkloadSummary(out, *workload)
            << absl::StrFormat(", MiniMalloc instance, live peak %.3f of the "
                               "capacity\n",
                               static_cast<double>(
                                   ComputeWorkloadStats(*workload)
                                       .peak_live_bytes) /
                                   capacity);
  return absl::OkStatus();
}

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
  const std::string trips = line.GetString("trip-counts", "");
  const std::vector<std::string> items =
      absl::StrSplit(trips, ',', absl::SkipEmpty());
  for (const std::string& item : items) {
    const std::vector<std::string> parts = absl::StrSplit(item, '=');
    int64_t count = 0;
    if (parts.size() != 2 || parts[0].empty() ||
        !absl::SimpleAtoi(parts[1], &count) || count < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--trip-counts: '", item,
          "' is not WHILE=N (a while's name and a trip count >= 1)"));
    }
    options.trip_counts[parts[0]] = count;
  }
  return options;
}

}  // namespace

absl::Status RunImport(const Args& args) {
  ASSIGN_OR_RETURN(
      const CommandLine line,
      CommandLine::Parse(
          args, {"hardware", "out", "memory-size", "alignment", "trip-counts",
                 "mapping-out"},
          {}));
  RETURN_IF_ERROR(line.ExpectPositional(1, kUsage));
  ASSIGN_OR_RETURN(const std::string out, line.GetRequired("out", kUsage));
  if (absl::EndsWith(line.positional()[0], ".csv")) {
    return ImportMiniMalloc(line, out);
  }
  ASSIGN_OR_RETURN(const hlo::HloImportOptions options, ParseOptions(line));

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
  if (line.Has("mapping-out")) {
    // The module's own placement, as a solution of this workload.
    ASSIGN_OR_RETURN(const hlo::MappedSolution mapped,
                     hlo::SolutionFromMapping(workload, result.mapping));
    RETURN_IF_ERROR(
        WriteProtoFile(line.GetString("mapping-out", ""), mapped.solution));
    std::cout << absl::StrFormat(
        "%s: the module's placement: %d copy, %d no-copy, %d drop, %d "
        "transfers; %d actions the game could not play as given "
        "(normalised return %.4f)\n",
        line.GetString("mapping-out", ""), mapped.copies, mapped.no_copies,
        mapped.drops, result.placement_transfers, mapped.changed,
        mapped.solution.normalised_return());
  }
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
