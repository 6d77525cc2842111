// `mmapctl solve WORKLOAD [--solver NAME] [--budget 60s] [--evaluations N]
// [--threads N] [--seed S] [--set key=value ...] [--out SOLUTION]
// [--svg layout.svg] [--json]` (--seconds S: the old name of --budget,
// kept for scripts): runs one solver (common/solvers/solver.h;
// default the portfolio) within the budget, prints a progress line on
// stderr about once a second, validates the best solution independently and
// only then writes it (and its layout picture).
// `--solver muzero` trains through the service: a job on the local cluster
// of --data-dir (cli/cluster_solve.h); `--in-process` runs MMap-MuZero's
// actors and learner as threads of this process instead. A `network`
// setting that names a registered network or a job's (`--set
// network=NAME`) is fetched from the coordinator for an in-process solver
// (`--solver policy`, `muzero --in-process`); a cluster's job gets the
// coordinator's own copy.
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cli/bound_report.h"
#include "cli/cluster_solve.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/job_client.h"
#include "cli/local_cluster.h"
#include "cli/latency_report.h"
#include "cli/solution_summary.h"
#include "common/base/atomic_file.h"
#include "common/base/status_macros.h"
#include "common/features/config_presets.h"
#include "common/solvers/solver.h"
#include "common/validate/validator.h"
#include "common/workload/layout_svg.h"
#include "common/workload/proto_io.h"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] =
    "solve WORKLOAD [--solver NAME] [--budget 60s|2m|1500ms|90] "
    "[--evaluations N] [--threads N] [--seed S] [--set key=value ...] "
    "[--out SOLUTION] [--svg layout.svg] [--json] [--bound] "
    "[--data-dir DIR] [--coordinator HOST:PORT] [--in-process]";
constexpr char kDefaultSolver[] = "portfolio";
constexpr double kDefaultBudgetSeconds = 2.0;

// "60s", "2m", "1500ms" (absl::ParseDuration) or plain seconds ("90").
// `flag` names the flag in errors.
absl::StatusOr<absl::Duration> ParseBudget(const std::string& flag,
                                           const std::string& text) {
  absl::Duration budget;
  double seconds;
  if (absl::SimpleAtod(text, &seconds) && std::isfinite(seconds)) {
    budget = absl::Seconds(seconds);
  } else if (!absl::ParseDuration(text, &budget)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": not a duration: '", text,
                     "' (e.g. 60s, 2m, 1500ms, 90)"));
  }
  if (budget <= absl::ZeroDuration() || budget == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": must be > 0 and finite, got '", text, "'"));
  }
  return budget;
}

// Takes every `--set key=value` (or `--set=key=value`; may repeat) out of
// `args` into `settings`; the other arguments stay for CommandLine.
absl::StatusOr<Args> ExtractSettings(const Args& args,
                                     solvers::SolverSettings* settings) {
  Args rest;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string pair;
    if (args[i] == "--set") {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError("--set needs a value key=value");
      }
      pair = args[++i];
    } else if (args[i].rfind("--set=", 0) == 0) {
      pair = args[i].substr(6);
    } else {
      rest.push_back(args[i]);
      continue;
    }
    const size_t eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--set: expected key=value, got '", pair, "'"));
    }
    (*settings)[pair.substr(0, eq)] = pair.substr(eq + 1);
  }
  return rest;
}

absl::StatusOr<solvers::SolverBudget> ParseSolverBudget(
    const CommandLine& line) {
  solvers::SolverBudget budget;
  if (line.Has("budget") && line.Has("seconds")) {
    return absl::InvalidArgumentError(
        "--seconds is the old name of --budget; give one of them");
  }
  if (line.Has("budget")) {
    ASSIGN_OR_RETURN(budget.wall_time,
                     ParseBudget("budget", line.GetString("budget", "")));
  } else if (line.Has("seconds")) {
    ASSIGN_OR_RETURN(budget.wall_time,
                     ParseBudget("seconds", line.GetString("seconds", "")));
  } else {
    budget.wall_time = absl::Seconds(kDefaultBudgetSeconds);
  }
  ASSIGN_OR_RETURN(budget.max_evaluations, line.GetInt("evaluations", 0));
  if (budget.max_evaluations < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--evaluations: must be >= 0 (0: no limit), got ",
                     budget.max_evaluations));
  }
  const int64_t cores = std::max(1u, std::thread::hardware_concurrency());
  ASSIGN_OR_RETURN(const int64_t threads, line.GetInt("threads", cores));
  if (threads < 1 || threads > 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat("--threads: must be in [1, 1024], got ", threads));
  }
  budget.threads = static_cast<int>(threads);
  ASSIGN_OR_RETURN(const int64_t seed, line.GetInt("seed", 1));
  budget.seed = static_cast<uint64_t>(seed);
  return budget;
}

// Fails unless the engine-independent validator accepts `solution`.
absl::Status CheckValid(const Workload& workload, const Solution& solution) {
  const validate::ValidationReport report =
      validate::ValidateSolution(workload, solution);
  if (report.ok) return absl::OkStatus();
  return absl::InternalError(absl::StrFormat(
      "the solver's solution failed independent validation (%d violations, "
      "first: %s: %s); this is a bug, please report it",
      report.violations.size(), report.violations[0].rule,
      report.violations[0].message));
}

void PrintProgress(const solvers::SolverProgress& progress) {
  std::string recent;
  if (progress.recent_normalised_return >= 0) {
    recent = absl::StrFormat("  recent %.4f", progress.recent_normalised_return);
  }
  std::cerr << absl::StrFormat(
      "  %6.1f s  %lld evaluations  best normalised return %.4f%s\n",
      progress.elapsed_seconds, static_cast<long long>(progress.evaluations),
      progress.best_normalised_return, recent);
}

// Progress lines at most one a second while a solver runs, and its last
// report at the end (PrintLast). Used by one solve at a time.
class ThrottledProgress {
 public:
  std::function<void(const solvers::SolverProgress&)> Callback() {
    return [this](const solvers::SolverProgress& progress) {
      last_ = progress;
      last_printed_ = absl::Now() - last_line_ >= absl::Seconds(1);
      if (!last_printed_) return;
      last_line_ = absl::Now();
      PrintProgress(progress);
    };
  }
  void PrintLast() {
    if (!last_printed_) PrintProgress(last_);
  }

 private:
  absl::Time last_line_ = absl::InfinitePast();
  solvers::SolverProgress last_;
  bool last_printed_ = true;
};

absl::Status WriteSvg(const std::string& path, const Workload& workload,
                      const Solution& solution) {
  ASSIGN_OR_RETURN(const std::string svg,
                   RenderLayoutSvg(workload, solution, LayoutSvgOptions{}));
  return WriteFileAtomically(path, svg);
}

// `--solver muzero` without --in-process: a job on the local cluster.
absl::StatusOr<Solution> SolveOnCluster(const CommandLine& line,
                                        const solvers::SolverSettings& settings,
                                        const solvers::SolverBudget& budget,
                                        const Workload& workload) {
  if (budget.max_evaluations > 0) {
    return absl::InvalidArgumentError(
        "--evaluations: the local cluster's jobs have a wall-time budget "
        "only; use --budget, or --in-process");
  }
  ClusterSolveOptions options;
  options.job_name = std::filesystem::path(line.positional()[0]).filename();
  options.budget = budget.wall_time;
  options.threads = budget.threads;
  options.seed = budget.seed;
  options.settings = settings;
  options.data_dir = DataDir(line);
  ASSIGN_OR_RETURN(options.bin_dir, ExecutableDir());
  ThrottledProgress stage_progress;  // a seed stage's, if the settings ask
  options.on_stage_progress = stage_progress.Callback();
  std::cerr << absl::StrFormat(
      "solving %s with muzero on the local cluster: %d buffers, %s budget\n",
      line.positional()[0], workload.buffers_size(),
      absl::FormatDuration(budget.wall_time));
  return SolveOnLocalCluster(workload, options, std::cerr);
}

// A network file fetched for this process, removed when it goes.
class FetchedNetwork {
 public:
  explicit FetchedNetwork(std::string path) : path_(std::move(path)) {}
  FetchedNetwork(const FetchedNetwork&) = delete;
  FetchedNetwork& operator=(const FetchedNetwork&) = delete;
  ~FetchedNetwork() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// An in-process solver's `network` setting that names a registered
// network or a job's (and no file here): exported from the coordinator
// (the one --coordinator, $MMAPZERO_COORDINATOR or --data-dir's cluster
// names) into a temporary file, which the setting then names.
absl::StatusOr<std::unique_ptr<FetchedNetwork>> FetchNamedNetwork(
    const CommandLine& line, solvers::SolverSettings* settings) {
  const auto it = settings->find("network");
  if (it == settings->end()) return nullptr;
  std::error_code error;
  if (!features::NamesCoordinatorNetwork(it->second) ||
      std::filesystem::is_regular_file(it->second, error)) {
    return nullptr;
  }
  ASSIGN_OR_RETURN(const std::unique_ptr<JobClient> client,
                   JobClient::Connect(line));
  ASSIGN_OR_RETURN(const auto network, client->FetchNetwork(it->second));
  const v1::NetworkInfo& info = network.first;
  std::string path =
      (std::filesystem::temp_directory_path() / "mmapctl-network-XXXXXX.pt")
          .string();
  const int fd = mkstemps(path.data(), 3);
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("cannot make a temporary file like ", path));
  }
  close(fd);
  auto fetched = std::make_unique<FetchedNetwork>(path);
  RETURN_IF_ERROR(WriteFileAtomically(path, network.second));
  std::cerr << absl::StrFormat(
      "network %s (%d learner steps, sha256 %s) from the coordinator at %s\n",
      it->second, info.learner_steps(), info.sha256().substr(0, 16),
      client->address());
  it->second = path;
  return fetched;
}

// Any solver in this process, with a progress line about once a second.
absl::StatusOr<Solution> SolveInProcess(const CommandLine& line,
                                        const std::string& solver_name,
                                        solvers::SolverSettings settings,
                                        solvers::SolverBudget budget,
                                        const Workload& workload) {
  ASSIGN_OR_RETURN(const std::unique_ptr<FetchedNetwork> fetched,
                   FetchNamedNetwork(line, &settings));
  auto solver = solvers::MakeSolver(solver_name, settings);
  if (!solver.ok()) {
    return absl::Status(solver.status().code(),
                        absl::StrCat("--solver ", solver_name, ": ",
                                     solver.status().message()));
  }
  ASSIGN_OR_RETURN(auto program, game::Program::Create(workload));
  std::cerr << absl::StrFormat(
      "solving %s with %s: %d buffers, %d instructions, %s budget, %d "
      "threads\n",
      line.positional()[0], solver_name, program->num_buffers(),
      program->num_steps(), absl::FormatDuration(budget.wall_time),
      budget.threads);
  ThrottledProgress progress;
  budget.on_progress = progress.Callback();
  ASSIGN_OR_RETURN(Solution best, (*solver)->Solve(program, budget));
  progress.PrintLast();
  return best;
}

}  // namespace

absl::Status RunSolve(const Args& args) {
  solvers::SolverSettings settings;
  ASSIGN_OR_RETURN(const Args rest, ExtractSettings(args, &settings));
  ASSIGN_OR_RETURN(
      const CommandLine line,
      CommandLine::Parse(rest,
                         {"solver", "budget", "seconds", "evaluations",
                          "threads", "seed", "out", "svg", "data-dir",
                          "coordinator"},
                         {"json", "in-process", "bound"}));
  RETURN_IF_ERROR(line.ExpectPositional(1, kUsage));
  const std::string solver_name = line.GetString("solver", kDefaultSolver);
  const bool on_cluster =
      solver_name == "muzero" && !line.Has("in-process");
  // A registered network or a job's comes from a coordinator, which
  // --data-dir (its local cluster) or --coordinator names.
  const auto network = settings.find("network");
  const bool names_network = network != settings.end() &&
                             features::NamesCoordinatorNetwork(network->second);
  if (solver_name != "muzero" &&
      (line.Has("in-process") ||
       (!names_network &&
        (line.Has("data-dir") || line.Has("coordinator"))))) {
    const std::string flag = line.Has("in-process") ? "in-process"
                             : line.Has("data-dir") ? "data-dir"
                                                    : "coordinator";
    return absl::InvalidArgumentError(absl::StrCat(
        "--", flag, ": only with --solver muzero or a network setting that "
        "names a registered network or a job (", solver_name,
        " always runs in this process)"));
  }
  ASSIGN_OR_RETURN(const solvers::SolverBudget budget,
                   ParseSolverBudget(line));
  ASSIGN_OR_RETURN(const Workload workload, ReadWorkload(line.positional()[0]));
  ASSIGN_OR_RETURN(
      const Solution solved,
      on_cluster
          ? SolveOnCluster(line, settings, budget, workload)
          : SolveInProcess(line, solver_name, settings, budget, workload));
  // Every solution leaves checked by the engine-independent validator,
  // with the latency users read: simulated, beside the heuristic's.
  RETURN_IF_ERROR(CheckValid(workload, solved));
  std::cerr << "validated independently: VALID\n";
  ASSIGN_OR_RETURN(auto program, game::Program::Create(workload));
  ASSIGN_OR_RETURN(const LatencyReport latency, ReportLatency(program, solved));
  Solution best = solved;
  best.set_simulated_latency_us(latency.simulated_latency_us);
  if (line.Has("out")) {
    RETURN_IF_ERROR(WriteProtoFile(line.GetString("out", ""), best));
  }
  if (line.Has("svg")) {
    RETURN_IF_ERROR(WriteSvg(line.GetString("svg", ""), workload, best));
  }
  ASSIGN_OR_RETURN(const std::optional<bound::OptimalityBound> bound,
                   BoundIfAsked(line, workload));
  PrintSolutionSummary(*program, best, latency, line.Has("json"), std::cout,
                       bound ? &*bound : nullptr);
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
