// mmapctl export WORKLOAD SOLUTION --hlo MODULE --out DIR: the solution
// written back into the module the workload was imported from
// (common/hlo/hlo_export.h): DIR/<module>.mapped.hlo,
// DIR/<module>.offsets.csv and DIR/<module>.overrides.txtpb.
#include <filesystem>
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "common/base/atomic_file.h"
#include "common/base/read_file.h"
#include "common/base/status_macros.h"
#include "common/hlo/hlo_export.h"
#include "common/workload/proto_io.h"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] =
    "export WORKLOAD SOLUTION --hlo MODULE.hlo --out DIR";

}  // namespace

absl::Status RunExport(const Args& args) {
  ASSIGN_OR_RETURN(const CommandLine line,
                   CommandLine::Parse(args, {"hlo", "out"}, {}));
  RETURN_IF_ERROR(line.ExpectPositional(2, kUsage));
  ASSIGN_OR_RETURN(const std::string module_path,
                   line.GetRequired("hlo", kUsage));
  ASSIGN_OR_RETURN(const std::string out, line.GetRequired("out", kUsage));
  ASSIGN_OR_RETURN(const Workload workload, ReadWorkload(line.positional()[0]));
  ASSIGN_OR_RETURN(const Solution solution, ReadSolution(line.positional()[1]));
  ASSIGN_OR_RETURN(const std::string text, ReadWholeFile(module_path));
  ASSIGN_OR_RETURN(const hlo::HloExport exported,
                   hlo::ExportSolution(text, module_path, workload, solution));
  std::error_code error;
  std::filesystem::create_directories(out, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat(out, ": cannot create the folder: ", error.message()));
  }
  std::string stem = std::filesystem::path(module_path).filename().string();
  if (const size_t dot = stem.rfind(".hlo"); dot != std::string::npos) {
    stem.resize(dot);
  }
  const std::string base = (std::filesystem::path(out) / stem).string();
  RETURN_IF_ERROR(WriteFileAtomically(base + ".mapped.hlo", exported.mapped_hlo));
  RETURN_IF_ERROR(
      WriteFileAtomically(base + ".offsets.csv", exported.offsets_csv));
  RETURN_IF_ERROR(WriteFileAtomically(base + ".overrides.txtpb",
                                      exported.overrides_txtpb));
  std::cout << absl::StrFormat(
      "%s.mapped.hlo: %d values in fast memory, %d prefetches, %d "
      "write-backs, %d spills; %s.offsets.csv, %s.overrides.txtpb\n",
      base, exported.fast_values, exported.prefetches, exported.write_backs,
      exported.spills, base, base);
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
