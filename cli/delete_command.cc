// `mmapctl delete JOB [--json]`: removes a done, failed or cancelled job
// and everything the coordinator keeps of it (DeleteJob), and says what
// that freed. A job that may still run is refused: cancel it first.
#include <iostream>
#include <string>

#include "absl/strings/str_format.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/job_client.h"
#include "common/base/status_macros.h"
#include "common/workload/proto_io.h"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] = "delete JOB [--coordinator HOST:PORT] [--json]";

}  // namespace

absl::Status RunDelete(const Args& args) {
  ASSIGN_OR_RETURN(const CommandLine line,
                   CommandLine::Parse(args, WithClientFlags({}), {"json"}));
  RETURN_IF_ERROR(line.ExpectPositional(1, kUsage));
  ASSIGN_OR_RETURN(const std::unique_ptr<JobClient> client,
                   JobClient::Connect(line));
  ASSIGN_OR_RETURN(const v1::DeleteJobResponse deleted,
                   client->Delete(line.positional()[0]));
  if (line.Has("json")) {
    std::cout << ToJson(deleted) << "\n";
  } else {
    std::cout << absl::StrFormat("deleted %s: freed %d bytes (%s)\n",
                                 deleted.job_id(), deleted.freed_bytes(),
                                 deleted.freed());
  }
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
