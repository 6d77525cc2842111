// bench/quality: solution quality of every solver on the imported HLO
// workloads and on generated workloads of about 300, 3,000 and 10,000
// buffers, each solver given the same wall-time budget on this machine.
// Every solution is validated independently and replayed in the latency
// simulator; the heuristic's simulated latency is the speed-up baseline.
// Prints a Markdown table (for docs/benchmarks.md); --json for scripts;
// --bound-seconds S adds each workload's optimality bound (mmapctl bound,
// given at most S seconds) and every solution's gap to it, with the time
// the bound took in the notes.
// --convergence OUT.csv records ES, BRKGA, random's and muzero's progress
// reports on the --convergence-workload(s), and the heuristic's one result
// as a reference, for bench/plot_convergence.py (the paper's Figure 5).
// Built with LibTorch, the `muzero` solver is available (--solvers muzero).
//
// Usage: quality_bench [--budget SECONDS] [--threads N] [--solvers a,b]
//   [--hlo-dir DIR] [--hardware NAME|FILE[@fast=Kx]] [--alignment A]
//   [--workloads a,b] [--seed S] [--json] [--json-out FILE]
//   [--bound-seconds S]
//   [--convergence OUT.csv] [--convergence-workload NAME[,NAME...]]
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "bench/quality/quality_report.h"
#include "bench/quality/quality_run.h"
#include "bench/quality/quality_workloads.h"
#include "common/bound/optimality_bound.h"
#include "common/workload/hardware_profiles.h"
#ifdef MMAPZERO_WITH_TORCH
#include "common/training/register_training_solvers.h"
#endif

namespace mmapzero::bench {
namespace {

struct Flags {
  double budget_seconds = 10;
  int threads = 2;
  std::vector<std::string> solvers = {"heuristic", "es", "brkga", "random",
                                      "drop-all"};
  std::string hlo_dir = MMAPZERO_SOURCE_DIR "/testdata/hlo";
  std::string hardware = "tpu-v4i";
  int64_t alignment = 1;
  std::vector<std::string> workloads;
  uint64_t seed = 1;
  bool json = false;
  std::string json_out;  // also write the JSON here
  std::string convergence_csv;
  std::vector<std::string> convergence_workloads = {"transformer-3000"};
  double bound_seconds = 0;  // 0: no bounds
};

// The solvers whose progress the convergence plot shows.
bool Converges(const std::string& solver) {
  return solver == "es" || solver == "brkga" || solver == "random" ||
         solver.rfind("muzero", 0) == 0;
}

std::vector<std::string> List(const std::string& text) {
  return absl::StrSplit(text, ',', absl::SkipEmpty());
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// --name VALUE or --name=VALUE; false (and a message) on a bad flag.
bool ParseFlags(int argc, char** argv, Flags* flags) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    if (arg == "--json") {
      flags->json = true;
      continue;
    }
    if (eq == std::string::npos) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", arg.c_str());
        return false;
      }
      value = argv[++i];
    }
    bool ok = true;
    if (arg == "--budget") {
      ok = absl::SimpleAtod(value, &flags->budget_seconds) &&
           flags->budget_seconds > 0;
    } else if (arg == "--threads") {
      ok = absl::SimpleAtoi(value, &flags->threads) && flags->threads > 0;
    } else if (arg == "--solvers") {
      flags->solvers = List(value);
    } else if (arg == "--hlo-dir") {
      flags->hlo_dir = value;
    } else if (arg == "--hardware") {
      flags->hardware = value;
    } else if (arg == "--alignment") {
      ok = absl::SimpleAtoi(value, &flags->alignment) && flags->alignment >= 0;
    } else if (arg == "--workloads") {
      flags->workloads = List(value);
    } else if (arg == "--seed") {
      ok = absl::SimpleAtoi(value, &flags->seed);
    } else if (arg == "--json-out") {
      flags->json_out = value;
    } else if (arg == "--bound-seconds") {
      ok = absl::SimpleAtod(value, &flags->bound_seconds) &&
           flags->bound_seconds >= 0;
    } else if (arg == "--convergence") {
      flags->convergence_csv = value;
    } else if (arg == "--convergence-workload") {
      flags->convergence_workloads = List(value);
    } else {
      std::fprintf(stderr, "unknown flag %s\n", arg.c_str());
      return false;
    }
    if (!ok) {
      std::fprintf(stderr, "%s: bad value '%s'\n", arg.c_str(), value.c_str());
      return false;
    }
  }
  return true;
}

std::string FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (absl::StartsWith(line, "model name")) {
      return std::string(
          absl::StripAsciiWhitespace(line.substr(line.find(':') + 1)));
    }
  }
  return "unknown CPU";
}

// "0.52 0.61 0.70" from /proc/loadavg.
std::string LoadAverage() {
  std::vector<std::string> fields =
      absl::StrSplit(FirstLine("/proc/loadavg"), ' ');
  if (fields.size() < 3) return "unknown";
  return absl::StrCat(fields[0], " / ", fields[1], " / ", fields[2]);
}

// The workload's normalised bound within `seconds` (0: not asked), with a
// note of what it took; -1 when not asked or not computed.
double BoundOf(const QualityWorkload& workload, double seconds,
               std::vector<std::string>* notes) {
  if (seconds <= 0) return -1;
  std::fprintf(stderr, "  bound      (at most %g s)...\n", seconds);
  bound::BoundOptions options;
  options.max_seconds = seconds;
  const absl::StatusOr<bound::OptimalityBound> bound =
      bound::ComputeBound(workload.workload, options);
  if (!bound.ok()) {
    notes->push_back(absl::StrCat("bound on ", workload.name, ": ",
                                  bound.status().message()));
    std::fprintf(stderr, "  bound      %s\n",
                 std::string(bound.status().message()).c_str());
    return -1;
  }
  notes->push_back(absl::StrFormat(
      "bound on %s: %s %.4f (%s: %s) in %.1f s", workload.name,
      bound->exact ? "=" : "<=", bound->normalised_return, bound->method,
      bound->details, bound->seconds));
  std::fprintf(stderr, "  bound      %.1f s, %.4f\n", bound->seconds,
               bound->normalised_return);
  return bound->normalised_return;
}

int Main(int argc, char** argv) {
  Flags flags;
  if (!ParseFlags(argc, argv, &flags)) return 2;
  absl::StatusOr<HardwareProfile> hardware =
      ResolveHardwareProfile(flags.hardware);
  if (!hardware.ok()) {
    std::fprintf(stderr, "%s\n",
                 std::string(hardware.status().message()).c_str());
    return 2;
  }
  QualityContext context;
  context.machine = absl::StrCat(CpuModel(), ", ",
                                 std::thread::hardware_concurrency(), " cores");
  context.hardware = hardware->name();
  context.budget_seconds = flags.budget_seconds;
  context.threads = flags.threads;
  context.load_before = LoadAverage();

  std::vector<std::string> notes;
  QualityWorkloadOptions workload_options;
  workload_options.hardware = *hardware;
  workload_options.alignment =
      flags.alignment > 0 ? flags.alignment : hardware->alignment();
  workload_options.hlo_dir = flags.hlo_dir;
  workload_options.only = flags.workloads;
  const std::vector<QualityWorkload> workloads =
      LoadQualityWorkloads(workload_options, &notes);

  // The heuristic first on every workload: it is the speed-up baseline.
  std::vector<std::string> solvers = flags.solvers;
  std::stable_partition(solvers.begin(), solvers.end(),
                        [](const std::string& s) { return s == "heuristic"; });
  QualityRunOptions run_options;
  run_options.wall_time = absl::Seconds(flags.budget_seconds);
  run_options.threads = flags.threads;
  run_options.seed = flags.seed;
  std::vector<QualityRow> rows;
  std::vector<ConvergencePoint> convergence;
  std::vector<std::string> unavailable;  // reported once, not per workload
  for (const QualityWorkload& workload : workloads) {
    std::fprintf(stderr, "workload %s: %d buffers, %d steps\n",
                 workload.name.c_str(), workload.program->num_buffers(),
                 workload.program->num_steps());
    const double bound = BoundOf(workload, flags.bound_seconds, &notes);
    for (const std::string& solver : solvers) {
      if (std::find(unavailable.begin(), unavailable.end(), solver) !=
          unavailable.end()) {
        continue;
      }
      const bool record = !flags.convergence_csv.empty() && Converges(solver) &&
                          Contains(flags.convergence_workloads, workload.name);
      QualityRow row = RunQualityCell(solver, workload, run_options,
                                      record ? &convergence : nullptr);
      std::fprintf(
          stderr, "  %-10s %.1f s, %lld evaluations, return %.4f%s%s\n",
          solver.c_str(), row.wall_seconds,
          static_cast<long long>(row.evaluations), row.normalised_return,
          row.message.empty() ? "" : ": ", row.message.c_str());
      if (!flags.convergence_csv.empty() && solver == "heuristic" &&
          row.status == RunStatus::kOk &&
          Contains(flags.convergence_workloads, workload.name)) {
        // The plot's reference line: the heuristic plays one game.
        convergence.push_back({workload.name, solver, row.wall_seconds,
                               row.evaluations, row.normalised_return});
      }
      if (row.status == RunStatus::kUnavailable) {
        unavailable.push_back(solver);
        notes.push_back(absl::StrCat("solver '", solver,
                                     "' skipped: not available yet (",
                                     row.message, ")"));
        continue;
      }
      row.bound = bound;
      rows.push_back(std::move(row));
    }
  }
  FillSpeedUps(rows);
  context.load_after = LoadAverage();
  if (!flags.convergence_csv.empty()) {
    if (convergence.empty()) {
      notes.push_back(absl::StrCat("no convergence points recorded on '",
                                   absl::StrJoin(flags.convergence_workloads, ","), "'"));
    }
    const absl::Status written =
        WriteConvergenceCsv(flags.convergence_csv, convergence);
    if (!written.ok()) {
      std::fprintf(stderr, "%s\n", std::string(written.message()).c_str());
      return 1;
    }
  }
  if (!flags.json_out.empty()) {
    std::FILE* file = std::fopen(flags.json_out.c_str(), "w");
    if (file == nullptr) {
      std::fprintf(stderr, "%s: cannot open for writing\n",
                   flags.json_out.c_str());
      return 1;
    }
    PrintQualityJson(context, rows, notes, file);
    std::fclose(file);
  }
  if (flags.json) {
    PrintQualityJson(context, rows, notes, stdout);
  } else {
    PrintQualityMarkdown(context, rows, notes, stdout);
  }
  const bool all_valid = std::none_of(
      rows.begin(), rows.end(),
      [](const QualityRow& r) { return r.status == RunStatus::kInvalid; });
  return all_valid ? 0 : 1;
}

}  // namespace
}  // namespace mmapzero::bench

int main(int argc, char** argv) {
#ifdef MMAPZERO_WITH_TORCH
  mmapzero::training::RegisterTrainingSolvers();
#endif
  return mmapzero::bench::Main(argc, argv);
}
