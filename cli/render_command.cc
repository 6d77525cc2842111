// `mmapctl render WORKLOAD SOLUTION --out layout.svg [--width PX]
// [--height PX] [--legend N]`: draws the solution's memory layout
// (common/workload/layout_svg.h). Bad input writes nothing; the file appears
// whole or not at all (temporary file renamed into place).
#include <climits>
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/workload_and_solution.h"
#include "common/base/atomic_file.h"
#include "common/base/status_macros.h"
#include "common/workload/layout_svg.h"
#include "common/workload/proto_io.h"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] =
    "render WORKLOAD SOLUTION --out layout.svg [--width PX] [--height PX] "
    "[--legend N]";

// An int flag that must fit an int; range checks are CheckLayoutOptions's.
absl::Status GetIntFlag(const CommandLine& line, const std::string& flag,
                        int* value) {
  ASSIGN_OR_RETURN(const int64_t parsed, line.GetInt(flag, *value));
  if (parsed < INT_MIN || parsed > INT_MAX) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": out of range: ", parsed));
  }
  *value = static_cast<int>(parsed);
  return absl::OkStatus();
}

absl::StatusOr<LayoutSvgOptions> ParseOptions(const CommandLine& line) {
  LayoutSvgOptions options;
  RETURN_IF_ERROR(GetIntFlag(line, "width", &options.width));
  RETURN_IF_ERROR(GetIntFlag(line, "height", &options.height));
  RETURN_IF_ERROR(GetIntFlag(line, "legend", &options.legend_entries));
  const absl::Status status = CheckLayoutOptions(options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--", status.message()));
  }
  return options;
}

}  // namespace

absl::Status RunRender(const Args& args) {
  ASSIGN_OR_RETURN(
      const CommandLine line,
      CommandLine::Parse(args, {"out", "width", "height", "legend"},
                         /*bool_flags=*/{}));
  ASSIGN_OR_RETURN(const std::string out, line.GetRequired("out", kUsage));
  ASSIGN_OR_RETURN(const LayoutSvgOptions options, ParseOptions(line));
  ASSIGN_OR_RETURN(const WorkloadAndSolution inputs,
                   ReadWorkloadAndSolution(line, kUsage));
  const auto& [workload, solution, solution_path] = inputs;
  const absl::Status layout = CheckLayoutInputs(workload, solution);
  if (!layout.ok()) {
    return absl::Status(layout.code(),
                        absl::StrCat(solution_path, ": ", layout.message()));
  }
  ASSIGN_OR_RETURN(const std::string svg,
                   RenderLayoutSvg(workload, solution, options));
  RETURN_IF_ERROR(WriteFileAtomically(out, svg));
  int allocations = 0;
  for (const BufferDecision& decision : solution.decisions()) {
    allocations += decision.has_interval_start() ? 1 : 0;  // checked above
  }
  std::cout << "wrote " << out << ": " << allocations << " allocations over "
            << workload.instructions_size() << " time steps, " << options.width
            << "x" << options.height << " px\n";
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
