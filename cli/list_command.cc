// `mmapctl list [--state queued,running,...] [--limit N] [--json]`: the
// coordinator's jobs, newest first, one row each: id, name, state, buffers,
// learner step, games, best and heuristic normalised return, and the time
// it has run (or waited, while queued).
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/job_client.h"
#include "cli/latency_report.h"
#include "common/base/status_macros.h"
#include "common/rpc/enum_names.h"
#include "common/workload/proto_io.h"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] =
    "list [--state seeding,queued,running,done,cancelled,failed] [--limit N] "
    "[--coordinator HOST:PORT] [--json]";

absl::StatusOr<v1::JobState> ParseState(const std::string& text) {
  for (int value = v1::JobState_MIN; value <= v1::JobState_MAX; ++value) {
    if (!v1::JobState_IsValid(value)) continue;
    const auto state = static_cast<v1::JobState>(value);
    if (state != v1::JOB_STATE_UNSPECIFIED && rpc::JobStateName(state) == text) {
      return state;
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--state: unknown state '", text,
                   "' (seeding, queued, running, done, cancelled, failed)"));
}

// "12m 3s" of running (or of waiting, while queued).
std::string Age(const v1::JobStatus& job) {
  const int64_t now_ms = absl::ToUnixMillis(absl::Now());
  int64_t from = job.started_unix_ms();
  if (from == 0) from = job.created_unix_ms();
  const int64_t to =
      job.finished_unix_ms() > 0 ? job.finished_unix_ms() : now_ms;
  const absl::Duration age = absl::Seconds((to - from) / 1000);
  return absl::FormatDuration(std::max(age, absl::ZeroDuration()));
}

void PrintTable(const std::vector<v1::JobStatus>& jobs) {
  constexpr char kRow[] = "%-11s %-20s %-9s %7s %8s %8s %12s %8s %8s  %s\n";
  std::cout << absl::StrFormat(kRow, "JOB", "NAME", "STATE", "BUFFERS", "STEP",
                               "GAMES", "LATENCY", "SPEED-UP", "RETURN",
                               "TIME");
  for (const v1::JobStatus& job : jobs) {
    std::string name = job.name();
    if (name.size() > 20) name = name.substr(0, 19) + "~";
    std::cout << absl::StrFormat(
        kRow, job.job_id(), name, rpc::JobStateName(job.state()),
        absl::StrCat(job.num_buffers()), absl::StrCat(job.learner_step()),
        absl::StrCat(job.games()),
        job.best_latency_us() > 0 ? FormatLatency(job.best_latency_us()) : "-",
        job.best_latency_us() > 0 && job.heuristic_latency_us() > 0
            ? absl::StrFormat("%.4fx",
                              job.heuristic_latency_us() / job.best_latency_us())
            : "-",
        absl::StrFormat("%.4f", job.best_normalised_return()), Age(job));
  }
}

}  // namespace

absl::Status RunList(const Args& args) {
  ASSIGN_OR_RETURN(
      const CommandLine line,
      CommandLine::Parse(args, WithClientFlags({"state", "limit"}), {"json"}));
  RETURN_IF_ERROR(line.ExpectPositional(0, kUsage));
  v1::ListJobsRequest request;
  if (line.Has("state")) {
    for (const absl::string_view text :
         absl::StrSplit(line.GetString("state", ""), ',', absl::SkipEmpty())) {
      ASSIGN_OR_RETURN(const v1::JobState state, ParseState(std::string(text)));
      request.add_states(state);
    }
  }
  ASSIGN_OR_RETURN(const int64_t limit, line.GetInt("limit", 0));
  if (limit < 0 || limit > 1000000) {
    return absl::InvalidArgumentError(
        absl::StrCat("--limit: must be in [0, 1000000] (0: all), got ", limit));
  }
  request.set_limit(static_cast<int32_t>(limit));
  ASSIGN_OR_RETURN(const std::unique_ptr<JobClient> client,
                   JobClient::Connect(line));
  ASSIGN_OR_RETURN(const v1::ListJobsResponse response, client->List(request));
  if (line.Has("json")) {
    std::cout << ToJson(response) << "\n";
    return absl::OkStatus();
  }
  if (response.jobs().empty()) {
    std::cout << "no jobs\n";
    return absl::OkStatus();
  }
  PrintTable({response.jobs().begin(), response.jobs().end()});
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
