// `mmapctl solve WORKLOAD [--solver NAME] [--budget 60s] [--evaluations N]
// [--threads N] [--seed S] [--set key=value ...] [--out SOLUTION]
// [--svg layout.svg] [--json]` (--seconds S: the old name of --budget,
// kept for scripts): runs one solver (common/solvers/solver.h;
// default the portfolio) within the budget, prints a progress line on
// stderr about once a second, validates the best solution independently and
// only then writes it (and its layout picture).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/solution_summary.h"
#include "common/base/atomic_file.h"
#include "common/base/status_macros.h"
#include "common/solvers/solver.h"
#include "common/validate/validator.h"
#include "common/workload/layout_svg.h"
#include "common/workload/proto_io.h"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] =
    "solve WORKLOAD [--solver NAME] [--budget 60s|2m|1500ms|90] "
    "[--evaluations N] [--threads N] [--seed S] [--set key=value ...] "
    "[--out SOLUTION] [--svg layout.svg] [--json]";
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

absl::Status WriteSvg(const std::string& path, const Workload& workload,
                      const Solution& solution) {
  ASSIGN_OR_RETURN(const std::string svg,
                   RenderLayoutSvg(workload, solution, LayoutSvgOptions{}));
  return WriteFileAtomically(path, svg);
}

}  // namespace

absl::Status RunSolve(const Args& args) {
  solvers::SolverSettings settings;
  ASSIGN_OR_RETURN(const Args rest, ExtractSettings(args, &settings));
  ASSIGN_OR_RETURN(
      const CommandLine line,
      CommandLine::Parse(rest,
                         {"solver", "budget", "seconds", "evaluations",
                          "threads", "seed", "out", "svg"},
                         {"json"}));
  RETURN_IF_ERROR(line.ExpectPositional(1, kUsage));
  const std::string solver_name = line.GetString("solver", kDefaultSolver);
  auto solver = solvers::MakeSolver(solver_name, settings);
  if (!solver.ok()) {
    return absl::Status(solver.status().code(),
                        absl::StrCat("--solver ", solver_name, ": ",
                                     solver.status().message()));
  }
  ASSIGN_OR_RETURN(solvers::SolverBudget budget, ParseSolverBudget(line));
  ASSIGN_OR_RETURN(const Workload workload, ReadWorkload(line.positional()[0]));
  ASSIGN_OR_RETURN(auto program, game::Program::Create(workload));
  std::cerr << absl::StrFormat(
      "solving %s with %s: %d buffers, %d instructions, %s budget, %d "
      "threads\n",
      line.positional()[0], solver_name, program->num_buffers(),
      program->num_steps(), absl::FormatDuration(budget.wall_time),
      budget.threads);
  // At most one line a second while it runs, and the last report at the end.
  absl::Time last_line = absl::InfinitePast();
  solvers::SolverProgress last;
  bool last_printed = true;
  budget.on_progress = [&](const solvers::SolverProgress& progress) {
    last = progress;
    last_printed = absl::Now() - last_line >= absl::Seconds(1);
    if (!last_printed) return;
    last_line = absl::Now();
    PrintProgress(progress);
  };
  ASSIGN_OR_RETURN(const Solution best, (*solver)->Solve(program, budget));
  if (!last_printed) PrintProgress(last);
  // Every solution leaves checked by the engine-independent validator.
  RETURN_IF_ERROR(CheckValid(workload, best));
  std::cerr << "validated independently: VALID\n";
  if (line.Has("out")) {
    RETURN_IF_ERROR(WriteProtoFile(line.GetString("out", ""), best));
  }
  if (line.Has("svg")) {
    RETURN_IF_ERROR(WriteSvg(line.GetString("svg", ""), workload, best));
  }
  PrintSolutionSummary(*program, best, line.Has("json"), std::cout);
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
