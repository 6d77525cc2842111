// `mmapctl status JOB [--json]`: one job's state and progress as the
// coordinator reports it (JobStatus, proto/job.proto): an aligned report,
// or the message as JSON.
#include <iostream>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "cli/best_start_report.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/job_client.h"
#include "cli/latency_report.h"
#include "common/base/status_macros.h"
#include "common/rpc/enum_names.h"
#include "common/workload/proto_io.h"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] = "status JOB [--coordinator HOST:PORT] [--json]";

std::string Time(int64_t unix_ms) {
  if (unix_ms == 0) return "-";
  return absl::FormatTime("%Y-%m-%d %H:%M:%S UTC",
                          absl::FromUnixMillis(unix_ms), absl::UTCTimeZone());
}

std::string Budget(const v1::Budget& budget) {
  std::string text = absl::FormatDuration(absl::Seconds(budget.wall_seconds()));
  if (budget.learner_steps() > 0) {
    absl::StrAppend(&text, " or ", budget.learner_steps(), " learner steps");
  }
  return text;
}

void PrintStatus(const v1::JobStatus& job, std::ostream& out) {
  const auto row = [&out](const std::string& key, const std::string& value) {
    out << absl::StrFormat("%-20s %s\n", key, value);
  };
  row("job", job.job_id());
  row("name", job.name());
  if (!job.owner().empty()) row("owner", job.owner());
  row("state", rpc::JobStateName(job.state()));
  if (!job.error().empty()) row("error", job.error());
  if (!job.checkpoint_fallback().empty()) {
    row("checkpoint fallback", job.checkpoint_fallback());
  }
  row("workload",
      absl::StrCat(job.workload_name(), " (", job.num_buffers(), " buffers)"));
  row("config", job.preset().empty() ? "(from file)" : job.preset());
  row("budget", Budget(job.budget()));
  row("created", Time(job.created_unix_ms()));
  row("started", Time(job.started_unix_ms()));
  row("finished", Time(job.finished_unix_ms()));
  row("learner step", absl::StrCat(job.learner_step()));
  row("parameter version", absl::StrCat(job.parameter_version()));
  row("games", absl::StrCat(job.games()));
  row("moves", absl::StrCat(job.moves()));
  row("simulations", absl::StrCat(job.simulations()));
  row("reanalysed", absl::StrCat(job.reanalysed()));
  row("best starts", BestStartText(job));
  const std::map<std::string, double> losses(job.losses().begin(),
                                             job.losses().end());
  if (!losses.empty()) {
    row("losses", absl::StrJoin(losses, ", ", [](std::string* s, auto& loss) {
          absl::StrAppend(s, loss.first, " ",
                          absl::StrFormat("%.4g", loss.second));
        }));
  }
  row("latency", JobLatencyText(job));
  row("heuristic latency", job.heuristic_latency_us() > 0
                               ? FormatLatency(job.heuristic_latency_us())
                               : "-");
  row("best return",
      absl::StrFormat("%.4f (%s)", job.best_normalised_return(),
                      job.best_solver().empty() ? "-" : job.best_solver()));
  row("heuristic return",
      absl::StrFormat("%.4f", job.heuristic_normalised_return()));
  if (job.seed_stage_latency_us() > 0) {
    row("seed stage",
        absl::StrFormat("%s, %s (return %.4f)", job.seed_stage_solver(),
                        FormatLatency(job.seed_stage_latency_us()),
                        job.seed_stage_normalised_return()));
  }
  row("agent's own", AgentShareText(job));
  row("started from",
      job.initial_network().empty() ? "default (where it fits)"
                                    : job.initial_network());
  row("network", job.network_sha256().empty()
                     ? "-"
                     : absl::StrFormat("step %d, sha256 %s",
                                       job.network_learner_step(),
                                       job.network_sha256().substr(0, 16)));
  row("learner",
      job.learner_worker_id().empty() ? "-" : job.learner_worker_id());
  row("actors", absl::StrCat(job.actors()));
  row("reanalysers", absl::StrCat(job.reanalysers()));
}

}  // namespace

absl::Status RunStatus(const Args& args) {
  ASSIGN_OR_RETURN(const CommandLine line,
                   CommandLine::Parse(args, WithClientFlags({}), {"json"}));
  RETURN_IF_ERROR(line.ExpectPositional(1, kUsage));
  ASSIGN_OR_RETURN(const std::unique_ptr<JobClient> client,
                   JobClient::Connect(line));
  ASSIGN_OR_RETURN(const v1::JobStatus job, client->Get(line.positional()[0]));
  if (line.Has("json")) {
    std::cout << ToJson(job) << "\n";
  } else {
    PrintStatus(job, std::cout);
  }
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
