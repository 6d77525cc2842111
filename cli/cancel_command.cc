// `mmapctl cancel JOB [--reason TEXT] [--json]`: cancels a seeding, queued
// or running job (CancelJob); cancelling a cancelled job again is fine, a
// done or failed one is an error. Its best solution stays available (`best`).
#include <iostream>
#include <string>

#include "absl/strings/str_format.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/job_client.h"
#include "common/base/status_macros.h"
#include "common/rpc/enum_names.h"
#include "common/workload/proto_io.h"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] =
    "cancel JOB [--reason TEXT] [--coordinator HOST:PORT] [--json]";

}  // namespace

absl::Status RunCancel(const Args& args) {
  ASSIGN_OR_RETURN(
      const CommandLine line,
      CommandLine::Parse(args, WithClientFlags({"reason"}), {"json"}));
  RETURN_IF_ERROR(line.ExpectPositional(1, kUsage));
  ASSIGN_OR_RETURN(const std::unique_ptr<JobClient> client,
                   JobClient::Connect(line));
  ASSIGN_OR_RETURN(const v1::JobStatus job,
                   client->Cancel(line.positional()[0],
                                  line.GetString("reason", "mmapctl cancel")));
  if (line.Has("json")) {
    std::cout << ToJson(job) << "\n";
  } else {
    std::cout << absl::StrFormat("%s %s (best normalised return %.4f)\n",
                                 job.job_id(), rpc::JobStateName(job.state()),
                                 job.best_normalised_return());
  }
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
