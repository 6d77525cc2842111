#include "cli/cluster_solve.h"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "cli/interrupt_watcher.h"
#include "cli/job_client.h"
#include "cli/job_progress_line.h"
#include "cli/local_cluster.h"
#include "common/base/address_file.h"
#include "common/base/status_macros.h"
#include "common/features/config_presets.h"
#include "common/solvers/solver_settings.h"

namespace mmapzero::cli {
namespace {

constexpr absl::Duration kCallDeadline = absl::Seconds(30);
// How long past its budget a job may take to start and end (queueing, a
// learner lease taken over, the final checkpoint) before solve gives up.
constexpr absl::Duration kWatchSlack = absl::Minutes(10);
constexpr int kMaxWorkers = 64;

struct JobPlan {
  v1::SubmitJobRequest request;
  int actors = 0;  // 0: auto
  int reanalysers = 1;
};

// The settings as a job and a cluster size; InvalidArgument naming the key.
absl::StatusOr<JobPlan> PlanJob(const ClusterSolveOptions& options) {
  const features::MuZeroConfigSettings split =
      features::SplitMuZeroConfigSettings(options.settings);
  for (const char* key : {"checkpoint", "learn", "log"}) {
    if (split.rest.count(key) > 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--set ", key, ": only with --in-process; on the local cluster the "
          "learner checkpoints under the data dir by itself"));
    }
  }
  JobPlan plan;
  solvers::SettingsReader reader("muzero", split.rest);
  ASSIGN_OR_RETURN(const int64_t actors,
                   reader.GetInt("actors", 0, 0, kMaxWorkers));
  ASSIGN_OR_RETURN(const int64_t reanalysers,
                   reader.GetInt("reanalyse", 1, 0, kMaxWorkers));
  RETURN_IF_ERROR(reader.CheckNoUnknownKeys());
  plan.actors = static_cast<int>(actors);
  plan.reanalysers = static_cast<int>(reanalysers);
  if (split.overrides.empty() && features::PresetByName(split.config).ok()) {
    plan.request.set_preset(split.config);
  } else {
    absl::StatusOr<MuZeroConfig> loaded =
        features::LoadMuZeroConfig(split.config, split.overrides);
    if (!loaded.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "muzero: config=", split.config, ": ", loaded.status().message()));
    }
    *plan.request.mutable_config() = *std::move(loaded);
  }
  plan.request.set_name(options.job_name);
  plan.request.mutable_budget()->set_wall_seconds(absl::ToInt64Seconds(
      absl::Ceil(options.budget, absl::Seconds(1))));
  return plan;
}

// Starts the data dir's cluster unless one runs there already; returns
// whether this call started it.
absl::StatusOr<bool> EnsureCluster(const ClusterSolveOptions& options,
                                   const JobPlan& plan, std::ostream& log) {
  LocalClusterOptions cluster;
  cluster.data_dir = options.data_dir;
  cluster.bin_dir = options.bin_dir;
  cluster.actors =
      plan.actors > 0 ? plan.actors : std::max(1, options.threads - 1);
  cluster.reanalysers = plan.reanalysers;
  cluster.first_seed = options.seed;
  log << absl::StrFormat(
      "starting the local cluster in %s: coordinator, replay, learner, %d "
      "actor%s, %d reanalyse worker%s\n",
      options.data_dir, cluster.actors, cluster.actors == 1 ? "" : "s",
      cluster.reanalysers, cluster.reanalysers == 1 ? "" : "s");
  const absl::Status up = LocalUp(cluster, log);
  if (absl::IsAlreadyExists(up)) {
    log << "a local cluster already runs in " << options.data_dir
        << "; the job runs there and the cluster stays up\n";
    return false;
  }
  if (!up.ok()) {
    return absl::Status(up.code(), absl::StrCat("local cluster in ",
                                                options.data_dir, ": ",
                                                up.message()));
  }
  return true;
}

// Watches `job_id` to its end, printing progress; the job's last status.
absl::StatusOr<v1::JobStatus> WatchToEnd(JobClient& client,
                                         const std::string& job_id,
                                         absl::Duration max_wait,
                                         std::ostream& log) {
  JobProgressPrinter printer;
  v1::JobStatus last;
  const absl::Status watched =
      client.Watch(job_id, max_wait, [&](const v1::JobProgress& progress) {
        last = progress.job();
        const std::string text = printer.Next(progress, absl::Now());
        if (!text.empty()) log << text << std::endl;
      });
  if (absl::IsDeadlineExceeded(watched)) {
    (void)client.Cancel(job_id, "mmapctl solve: not finished in time");
    return absl::DeadlineExceededError(absl::StrCat(
        job_id, " had not ended ", absl::FormatDuration(max_wait),
        " after it was submitted; cancelled it"));
  }
  RETURN_IF_ERROR(watched);
  return last;
}

}  // namespace

absl::StatusOr<Solution> SolveOnLocalCluster(const Workload& workload,
                                             const ClusterSolveOptions& options,
                                             std::ostream& log) {
  ASSIGN_OR_RETURN(JobPlan plan, PlanJob(options));
  *plan.request.mutable_workload() = workload;
  // Before the cluster's first thread: a Ctrl-C from here on winds down.
  InterruptWatcher interrupts;
  ASSIGN_OR_RETURN(const bool started, EnsureCluster(options, plan, log));
  absl::Cleanup stop_cluster = [&] {
    if (!started) return;
    log << "stopping the local cluster in " << options.data_dir << "\n";
    LocalClusterOptions cluster;
    cluster.data_dir = options.data_dir;
    (void)LocalDown(cluster, log);
  };
  if (interrupts.interrupted()) {
    return absl::CancelledError("interrupted before the job was submitted");
  }
  ASSIGN_OR_RETURN(
      const std::string address,
      ReadAddressFile(absl::StrCat(options.data_dir, "/coordinator.addr")));
  auto client = std::make_shared<JobClient>(address, kCallDeadline);
  ASSIGN_OR_RETURN(const v1::SubmitJobResponse submitted,
                   client->Submit(plan.request));
  const std::string job_id = submitted.job_id();
  log << absl::StrFormat(
      "submitted %s: %d buffers, heuristic seed normalised return %.4f; "
      "logs in %s\n",
      job_id, submitted.job().num_buffers(),
      submitted.job().heuristic_normalised_return(), options.data_dir);
  // The callback runs on the watcher's thread: it owns what it uses.
  interrupts.OnInterrupt([client, job_id] {
    std::cerr << "interrupted: cancelling " << job_id
              << "; it ends with its best so far\n";
    (void)client->Cancel(job_id, "interrupted (mmapctl solve)");
  });
  ASSIGN_OR_RETURN(
      const v1::JobStatus last,
      WatchToEnd(*client, job_id, options.budget + kWatchSlack, log));
  if (last.state() == v1::JOB_STATE_FAILED) {
    return absl::AbortedError(absl::StrCat(job_id, " failed: ", last.error(),
                                           " (logs in ", options.data_dir,
                                           ")"));
  }
  ASSIGN_OR_RETURN(const v1::GetBestSolutionResponse best,
                   client->Best(job_id));
  log << absl::StrFormat(
      "%s %s: %d learner steps, %d games, %d moves; best %.4f (heuristic "
      "%.4f), found by %s\n",
      job_id, StateName(last.state()), last.learner_step(), last.games(),
      last.moves(), last.best_normalised_return(),
      last.heuristic_normalised_return(),
      best.worker_id().empty() ? "the heuristic seed" : best.worker_id());
  Solution solution = best.solution();
  // As for the in-process solvers: the time the solve took, here the job's
  // running time (an actor's report carries none, the heuristic seed's is
  // its own few milliseconds).
  if (last.started_unix_ms() > 0 &&
      last.finished_unix_ms() > last.started_unix_ms()) {
    solution.mutable_solver()->set_wall_seconds(
        (last.finished_unix_ms() - last.started_unix_ms()) / 1000.0);
  }
  return solution;
}

}  // namespace mmapzero::cli
