// A job's wall time, changed after its submit:
//   `mmapctl extend JOB --budget D [--json]`: D more for a job that has not
//   ended (ExtendJob); its budget, counted from when it started running,
//   stays within 24 h. A job that ended is resumed instead.
//   `mmapctl resume JOB --budget D [--json]`: a done or cancelled job runs
//   again for D (ResumeJob): its best is kept and its actors start from it;
//   its learner resumes from the job's last checkpoint while the learner's
//   volume holds it (the coordinator's note says what it expects). A failed
//   job is submitted again instead.
#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/job_client.h"
#include "common/base/status_macros.h"
#include "common/rpc/enum_names.h"
#include "common/workload/proto_io.h"

namespace mmapzero::cli {
namespace {

// What extend and resume read alike: JOB, --budget, --json and the
// coordinator's client.
struct JobTimeRequest {
  std::string job_id;
  int64_t wall_seconds = 0;
  bool json = false;
  std::unique_ptr<JobClient> client;
};

absl::StatusOr<JobTimeRequest> ReadJobTimeRequest(const Args& args,
                                                  const char* usage) {
  ASSIGN_OR_RETURN(
      const CommandLine line,
      CommandLine::Parse(args, WithClientFlags({"budget"}), {"json"}));
  RETURN_IF_ERROR(line.ExpectPositional(1, usage));
  JobTimeRequest request;
  request.job_id = line.positional()[0];
  request.json = line.Has("json");
  ASSIGN_OR_RETURN(request.wall_seconds, BudgetSecondsFlag(line, usage));
  ASSIGN_OR_RETURN(request.client, JobClient::Connect(line));
  return request;
}

std::string WallTime(const v1::JobStatus& job) {
  return absl::FormatDuration(absl::Seconds(job.budget().wall_seconds()));
}

}  // namespace

absl::Status RunExtend(const Args& args) {
  ASSIGN_OR_RETURN(
      const JobTimeRequest request,
      ReadJobTimeRequest(
          args, "extend JOB --budget D [--coordinator HOST:PORT] [--json]"));
  ASSIGN_OR_RETURN(
      const v1::JobStatus job,
      request.client->Extend(request.job_id, request.wall_seconds));
  if (request.json) {
    std::cout << ToJson(job) << "\n";
  } else {
    std::cout << absl::StrFormat("%s %s: budget now %s of wall time\n",
                                 job.job_id(), rpc::JobStateName(job.state()),
                                 WallTime(job));
  }
  return absl::OkStatus();
}

absl::Status RunResume(const Args& args) {
  ASSIGN_OR_RETURN(
      const JobTimeRequest request,
      ReadJobTimeRequest(
          args, "resume JOB --budget D [--coordinator HOST:PORT] [--json]"));
  ASSIGN_OR_RETURN(
      const v1::ResumeJobResponse resumed,
      request.client->Resume(request.job_id, request.wall_seconds));
  if (request.json) {
    std::cout << ToJson(resumed) << "\n";
  } else {
    const v1::JobStatus& job = resumed.job();
    std::cout << absl::StrFormat(
        "%s %s again with a budget of %s (best normalised return %.4f); %s\n",
        job.job_id(), rpc::JobStateName(job.state()), WallTime(job),
        job.best_normalised_return(), resumed.note());
  }
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
