// `mmapctl best JOB --out SOLUTION [--svg layout.svg] [--json]`: fetches a
// job's best verified solution (GetBestSolution, with the job's workload),
// checks it again here with the engine-independent validator
// (common/validate) as `solve` does, and only then writes it (JSON when the
// name ends in .json) and, with --svg, its layout picture. Prints the
// solution's summary and who found it.
#include <iostream>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "cli/bound_report.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/job_client.h"
#include "cli/latency_report.h"
#include "cli/solution_summary.h"
#include "cli/verified_best.h"
#include "common/base/atomic_file.h"
#include "common/base/status_macros.h"
#include "common/game/program.h"
#include "common/workload/layout_svg.h"
#include "common/workload/proto_io.h"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] =
    "best JOB --out SOLUTION [--svg layout.svg] [--coordinator HOST:PORT] "
    "[--json] [--bound]";

}  // namespace

absl::Status RunBest(const Args& args) {
  ASSIGN_OR_RETURN(
      const CommandLine line,
      CommandLine::Parse(args, WithClientFlags({"out", "svg"}),
                         {"json", "bound"}));
  RETURN_IF_ERROR(line.ExpectPositional(1, kUsage));
  ASSIGN_OR_RETURN(const std::string out, line.GetRequired("out", kUsage));
  const std::string job_id = line.positional()[0];
  ASSIGN_OR_RETURN(const std::unique_ptr<JobClient> client,
                   JobClient::Connect(line));
  ASSIGN_OR_RETURN(const v1::GetBestSolutionResponse best,
                   client->Best(job_id));
  if (!best.has_workload()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the coordinator at ", client->address(),
        " sent no workload with the solution of ", job_id,
        " (too old for include_workload?); cannot validate it here"));
  }
  RETURN_IF_ERROR(CheckBestValid(job_id, best.workload(), best.solution()));
  std::cerr << "validated independently: VALID\n";
  RETURN_IF_ERROR(WriteProtoFile(out, best.solution()));
  if (line.Has("svg")) {
    ASSIGN_OR_RETURN(
        const std::string svg,
        RenderLayoutSvg(best.workload(), best.solution(), LayoutSvgOptions{}));
    RETURN_IF_ERROR(WriteFileAtomically(line.GetString("svg", ""), svg));
  }
  std::cerr << absl::StrFormat(
      "best of %s: found by %s at %s\n", job_id,
      best.worker_id().empty() ? "the heuristic seed" : best.worker_id(),
      absl::FormatTime("%Y-%m-%d %H:%M:%S UTC",
                       absl::FromUnixMillis(best.found_unix_ms()),
                       absl::UTCTimeZone()));
  ASSIGN_OR_RETURN(auto program, game::Program::Create(best.workload()));
  ASSIGN_OR_RETURN(const std::optional<bound::OptimalityBound> bound,
                   BoundIfAsked(line, best.workload()));
  ASSIGN_OR_RETURN(const LatencyReport latency,
                   ReportLatency(program, best.solution()));
  PrintSolutionSummary(*program, best.solution(), latency, line.Has("json"),
                       std::cout, bound ? &*bound : nullptr);
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
