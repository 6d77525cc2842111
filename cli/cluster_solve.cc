#include "cli/cluster_solve.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "cli/best_start_report.h"
#include "cli/interrupt_watcher.h"
#include "cli/job_client.h"
#include "cli/job_progress_line.h"
#include "cli/latency_report.h"
#include "cli/local_cluster.h"
#include "common/base/address_file.h"
#include "common/agent/self_play_counters.h"
#include "common/base/status_macros.h"
#include "common/features/config_presets.h"
#include "common/game/program.h"
#include "common/rpc/enum_names.h"
#include "common/rpc/start_worker_id.h"
#include "common/solvers/seed_stage.h"
#include "common/solvers/solver_settings.h"
#include "common/validate/validator.h"

namespace mmapzero::cli {
namespace {

constexpr absl::Duration kCallDeadline = absl::Seconds(30);
// How long past its budget a job may take to start and end (queueing, a
// learner lease taken over, the final checkpoint) before solve gives up.
constexpr absl::Duration kWatchSlack = absl::Minutes(10);
constexpr int kMaxWorkers = 64;

struct JobPlan {
  v1::SubmitJobRequest request;
  // A search before the job (the combination); the job gets the rest of
  // the budget and starts from the search's best.
  solvers::SeedStage seed_stage;
  int actors = 0;  // 0: auto
  int reanalysers = 1;
};

// The settings as a job and a cluster size; InvalidArgument naming the key.
absl::StatusOr<JobPlan> PlanJob(const ClusterSolveOptions& options) {
  const features::MuZeroConfigSettings split =
      features::SplitMuZeroConfigSettings(options.settings);
  for (const char* key : {"checkpoint", "log"}) {
    if (split.rest.count(key) > 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--set ", key, ": only with --in-process; on the local cluster the "
          "learner checkpoints under the data dir by itself"));
    }
  }
  JobPlan plan;
  features::MuZeroConfigSettings rest = split;
  ASSIGN_OR_RETURN(plan.seed_stage,
                   solvers::TakeSeedStage("muzero", rest.rest));
  RETURN_IF_ERROR(features::TakeInitialNetwork(&rest));
  solvers::SettingsReader reader("muzero", rest.rest);
  ASSIGN_OR_RETURN(const int64_t actors,
                   reader.GetInt("actors", 0, 0, kMaxWorkers));
  ASSIGN_OR_RETURN(const int64_t learn, reader.GetInt("learn", 1, 0, 1));
  // Without learning nothing changes the network whose targets
  // reanalysis would refresh: no reanalyse worker unless asked for.
  ASSIGN_OR_RETURN(const int64_t reanalysers,
                   reader.GetInt("reanalyse", learn, 0, kMaxWorkers));
  RETURN_IF_ERROR(reader.CheckNoUnknownKeys());
  plan.actors = static_cast<int>(actors);
  plan.reanalysers = static_cast<int>(reanalysers);
  if (learn == 0) {  // the job's learner takes no step
    rest.overrides.emplace_back("training.no_learning=true");
  }

  if (rest.overrides.empty() && features::PresetByName(rest.config).ok()) {
    plan.request.set_preset(rest.config);
  } else {
    absl::StatusOr<MuZeroConfig> loaded =
        features::LoadMuZeroConfig(rest.config, rest.overrides);
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

// The combination's first stage, in this process with the solve's
// threads: the stage solver's best within seed_share of the budget,
// validated here before the job starts from it.
absl::StatusOr<Solution> RunSeedStage(const Workload& workload,
                                      const solvers::SeedStage& stage,
                                      const ClusterSolveOptions& options,
                                      std::ostream& log) {
  ASSIGN_OR_RETURN(std::unique_ptr<solvers::Solver> solver,
                   solvers::MakeSolver(stage.solver, {}));
  ASSIGN_OR_RETURN(std::shared_ptr<const game::Program> program,
                   game::Program::Create(workload));
  solvers::SolverBudget budget;
  budget.wall_time = options.budget * stage.share;
  budget.threads = options.threads;
  budget.seed = options.seed;
  budget.on_progress = options.on_stage_progress;
  log << absl::StrFormat(
      "seed stage: %s for %s (seed_share %.2f), then the agent from its "
      "best\n",
      stage.solver, absl::FormatDuration(budget.wall_time), stage.share);
  ASSIGN_OR_RETURN(Solution best, solver->Solve(program, budget));
  const validate::ValidationReport report =
      validate::ValidateSolution(workload, best);
  if (!report.ok) {
    return absl::InternalError(absl::StrCat(
        "the seed stage's solution (", stage.solver,
        ") failed independent validation; this is a bug, please report it"));
  }
  log << absl::StrFormat("seed stage: %s reached %.4f\n", stage.solver,
                         best.normalised_return());
  return best;
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
  const absl::Time cluster_start = absl::Now();
  ASSIGN_OR_RETURN(const bool started, EnsureCluster(options, plan, log));
  // Outside the job's budget: reported beside it.
  const absl::Duration start_time = absl::Now() - cluster_start;
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
  std::optional<Solution> stage_best;
  absl::Duration stage_time;
  if (plan.seed_stage.searches()) {
    // The combination: the search plays first, here, while the cluster's
    // services wait; the job gets what is left of the budget.
    const absl::Time stage_start = absl::Now();
    ASSIGN_OR_RETURN(stage_best,
                     RunSeedStage(workload, plan.seed_stage, options, log));
    if (interrupts.interrupted()) {
      return absl::CancelledError(
          "interrupted during the seed stage, before the job was submitted");
    }
    stage_time = absl::Now() - stage_start;
    const absl::Duration rest =
        std::max(absl::Seconds(1), options.budget - stage_time);
    plan.request.mutable_budget()->set_wall_seconds(
        absl::ToInt64Seconds(absl::Ceil(rest, absl::Seconds(1))));
    *plan.request.mutable_start() = *stage_best;
  }
  ASSIGN_OR_RETURN(const v1::SubmitJobResponse submitted,
                   client->Submit(plan.request));
  const std::string job_id = submitted.job_id();
  log << absl::StrFormat(
      "submitted %s: %d buffers, %s%s; logs in %s\n", job_id,
      submitted.job().num_buffers(), DescribeSeed(submitted.job()),
      stage_best.has_value()
          ? absl::StrFormat(", starting from %s's %.4f",
                            plan.seed_stage.solver,
                            stage_best->normalised_return())
          : "",
      options.data_dir);
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
  const std::string found_by =
      best.worker_id().empty()           ? "the heuristic seed"
      : best.worker_id() == rpc::kStartWorkerId
          ? absl::StrCat("the seed stage (", plan.seed_stage.solver, ")")
          : best.worker_id();
  log << absl::StrFormat(
      "%s %s: %d learner steps, %d games, %d moves; best %s (return %.4f, "
      "heuristic %.4f), found by %s; the agent's own: %s; best starts: %s\n",
      job_id, rpc::JobStateName(last.state()), last.learner_step(), last.games(),
      last.moves(), JobLatencyText(last), last.best_normalised_return(),
      last.heuristic_normalised_return(), found_by, AgentShareText(last),
      BestStartText(last));
  Solution solution = best.solution();
  // Which part found it, as the in-process solver's settings say.
  auto& settings = *solution.mutable_solver()->mutable_settings();
  settings["found_by"] = found_by;
  // The job's id, for what comes after: its network (`--network JOB`,
  // `networks import --from-job JOB`), its status.
  settings["job_id"] = job_id;
  settings["learner_steps"] = absl::StrCat(last.learner_step());
  // How much the job played, and how its games used the best game: what
  // a benchmark compares between two jobs of one program.
  agent::SelfPlayCounters job_counts;
  job_counts.games = last.games();
  job_counts.moves = last.moves();
  job_counts.best_starts = last.best_starts();
  job_counts.followed_moves = last.followed_moves();
  job_counts.rejoined = last.rejoined();
  job_counts.unchanged = last.unchanged();
  job_counts.window = last.best_start_window();
  for (const agent::ReportedCount& count : agent::ReportedCounts(job_counts)) {
    settings[count.name] = absl::StrCat(count.value);
  }
  settings["cluster_start_seconds"] =
      absl::StrFormat("%.1f", absl::ToDoubleSeconds(start_time));
  if (last.agent_speedup() > 0) {
    settings["agent_speedup"] = absl::StrFormat("%.4f", last.agent_speedup());
    settings["start_solver"] = last.start_solver();
  }
  if (stage_best.has_value()) {
    settings["seed_solver"] = plan.seed_stage.solver;
    settings["seed_stage_best"] =
        absl::StrFormat("%.4f", stage_best->normalised_return());
  }
  // As for the in-process solvers: the time the solve took, here the seed
  // stage's and the job's running time (an actor's report carries none, the
  // heuristic seed's is its own few milliseconds).
  if (last.started_unix_ms() > 0 &&
      last.finished_unix_ms() > last.started_unix_ms()) {
    solution.mutable_solver()->set_wall_seconds(
        absl::ToDoubleSeconds(stage_time) +
        (last.finished_unix_ms() - last.started_unix_ms()) / 1000.0);
  }
  return solution;
}

}  // namespace mmapzero::cli
