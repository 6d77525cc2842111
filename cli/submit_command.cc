// `mmapctl submit WORKLOAD [--config PRESET|FILE] [--budget 24h] [--steps N]
// [--name NAME] [--json]`: sends a workload file (JSON or binary, checked
// here first; an XLA HLO module goes through `mmapctl import` first) to the
// coordinator as a new job and prints its id on stdout, so scripts can
// write `job=$(mmapctl submit w.json)`. --config is a preset name ("cpu",
// the default, or "paper") or a MuZeroConfig JSON file (configs/README.md);
// --budget the wall time once running (at most 24h, the default) and
// --steps a learner step limit: the job ends at whichever comes first;
// --start SOLUTION a solution of the workload to start from (e.g. an
// earlier job's `mmapctl best`), used when it beats the heuristic's;
// --network the network the job's learner starts from: default (the
// shipped pretrained network; what a job of the cpu preset starts from
// anyway), none (a fresh network), a network of the coordinator's
// registry by name (`mmapctl networks list`), an earlier job's network by
// its id (job-000123), or a network file the learner can read (an earlier
// job's network.pt, sent as its absolute path).
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/job_client.h"
#include "common/base/status_macros.h"
#include "common/features/config_presets.h"
#include "common/workload/proto_io.h"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] =
    "submit WORKLOAD [--config cpu|paper|FILE] [--budget 24h] [--steps N] "
    "[--name NAME] [--start SOLUTION] [--network NAME|JOB|FILE|none] "
    "[--coordinator HOST:PORT] [--json]";

absl::Status SetTraining(const CommandLine& line,
                         v1::SubmitJobRequest* request) {
  const std::string config = line.GetString("config", "cpu");
  features::MuZeroConfigSettings settings;
  settings.config = config;
  if (line.Has("network")) {
    settings.rest["network"] = line.GetString("network", "");
    RETURN_IF_ERROR(features::TakeInitialNetwork(&settings, "--network"));
  } else if (features::PresetByName(config).ok()) {
    request->set_preset(config);
    return absl::OkStatus();
  }
  absl::StatusOr<MuZeroConfig> loaded =
      features::LoadMuZeroConfig(config, settings.overrides);
  if (!loaded.ok()) {
    return FlagError("config",
                     absl::Status(loaded.status().code(),
                                  absl::StrCat("not a preset (cpu, paper) nor "
                                               "a usable config file: ",
                                               loaded.status().message())));
  }
  *request->mutable_config() = *std::move(loaded);
  return absl::OkStatus();
}

absl::Status SetBudget(const CommandLine& line, v1::Budget* budget) {
  if (line.Has("budget")) {
    ASSIGN_OR_RETURN(const int64_t seconds,
                     WallSecondsFlag("budget", line.GetString("budget", "")));
    budget->set_wall_seconds(seconds);
  }
  ASSIGN_OR_RETURN(const int64_t steps, line.GetInt("steps", 0));
  if (steps < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--steps: must be >= 0 (0: no step limit), got ", steps));
  }
  budget->set_learner_steps(steps);
  return absl::OkStatus();
}

}  // namespace

absl::Status RunSubmit(const Args& args) {
  ASSIGN_OR_RETURN(
      const CommandLine line,
      CommandLine::Parse(args,
                         WithClientFlags({"config", "budget", "steps", "name", "start",
                                          "network", "request-id"}),
                         {"json"}));
  RETURN_IF_ERROR(line.ExpectPositional(1, kUsage));
  v1::SubmitJobRequest request;
  request.set_name(line.GetString("name", ""));
  request.set_request_id(line.GetString("request-id", ""));
  RETURN_IF_ERROR(SetBudget(line, request.mutable_budget()));
  RETURN_IF_ERROR(SetTraining(line, &request));
  ASSIGN_OR_RETURN(*request.mutable_workload(),
                   ReadWorkload(line.positional()[0]));
  if (line.Has("start")) {
    absl::StatusOr<Solution> start = ReadSolution(line.GetString("start", ""));
    if (!start.ok()) return FlagError("start", start.status());
    *request.mutable_start() = *std::move(start);
  }
  ASSIGN_OR_RETURN(const std::unique_ptr<JobClient> client,
                   JobClient::Connect(line));
  absl::StatusOr<v1::SubmitJobResponse> response = client->Submit(request);
  if (!response.ok()) {
    return absl::Status(
        response.status().code(),
        absl::StrCat(line.positional()[0], ": ", response.status().message()));
  }
  if (line.Has("json")) {
    std::cout << ToJson(response->job()) << "\n";
    return absl::OkStatus();
  }
  const v1::JobStatus& job = response->job();
  std::cerr << absl::StrFormat(
      "submitted %s to %s: '%s', %d buffers, %s, budget %s%s; %s\n",
      response->job_id(), client->address(), job.name(), job.num_buffers(),
      job.preset().empty() ? "config from file" : "preset " + job.preset(),
      absl::FormatDuration(absl::Seconds(job.budget().wall_seconds())),
      job.budget().learner_steps() > 0
          ? absl::StrCat(" or ", job.budget().learner_steps(), " steps")
          : "",
      DescribeSeed(job));
  std::cout << response->job_id() << "\n";
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
