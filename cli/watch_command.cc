// `mmapctl watch JOB [--for 25h] [--json]`: follows a job (WatchJob) and
// prints a line per update until the job is final: time running, state,
// learner step, games, moves per second (between updates), best normalised
// return, a '+' when it just improved. At most one line a second, except
// when the state or the best changes, and always the last. --json prints
// every JobProgress as one line of JSON instead. Exits non-zero when the
// job failed, or was still not final after --for.
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/job_client.h"
#include "cli/job_progress_line.h"
#include "common/base/status_macros.h"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] =
    "watch JOB [--for 25h] [--coordinator HOST:PORT] [--json]";
constexpr absl::Duration kDefaultFor = absl::Hours(25);

}  // namespace

absl::Status RunWatch(const Args& args) {
  ASSIGN_OR_RETURN(
      const CommandLine line,
      CommandLine::Parse(args, WithClientFlags({"for"}), {"json"}));
  RETURN_IF_ERROR(line.ExpectPositional(1, kUsage));
  absl::Duration max_wait = kDefaultFor;
  if (line.Has("for")) {
    ASSIGN_OR_RETURN(max_wait,
                     ParseDurationFlag("for", line.GetString("for", "")));
  }
  const std::string job_id = line.positional()[0];
  ASSIGN_OR_RETURN(const std::unique_ptr<JobClient> client,
                   JobClient::Connect(line));
  const bool json = line.Has("json");
  JobProgressPrinter printer;
  v1::JobStatus last;
  RETURN_IF_ERROR(
      client->Watch(job_id, max_wait, [&](const v1::JobProgress& progress) {
        last = progress.job();
        if (json) {
          std::cout << CompactJson(progress) << std::endl;
          return;
        }
        const std::string text = printer.Next(progress, absl::Now());
        if (!text.empty()) std::cout << text << std::endl;
      }));
  if (last.state() == v1::JOB_STATE_FAILED) {
    return absl::AbortedError(
        absl::StrCat("job ", job_id, " failed: ", last.error()));
  }
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
