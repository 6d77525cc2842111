#include "bench/quality/quality_run.h"

#include <chrono>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_split.h"

#include "common/solvers/solver.h"
#include "common/validate/evaluation.h"

namespace mmapzero::bench {
namespace {

using Clock = std::chrono::steady_clock;

QualityRow Failed(QualityRow row, RunStatus status, const absl::Status& why) {
  row.status = status;
  row.message = std::string(why.message());
  return row;
}

}  // namespace

QualityRow RunQualityCell(const std::string& solver_name,
                          const QualityWorkload& workload,
                          const QualityRunOptions& options,
                          std::vector<ConvergencePoint>* convergence) {
  QualityRow row;
  row.workload = workload.name;
  row.buffers = workload.program->num_buffers();
  row.solver = solver_name;
  // NAME or NAME:key=value:key=value (solver settings, e.g. an ablation).
  const std::vector<std::string> parts = absl::StrSplit(solver_name, ':');
  solvers::SolverSettings settings;
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::pair<std::string, std::string> kv =
        absl::StrSplit(parts[i], absl::MaxSplits('=', 1));
    settings[kv.first] = kv.second;
  }
  absl::StatusOr<std::unique_ptr<solvers::Solver>> solver =
      solvers::MakeSolver(parts[0], settings);
  if (!solver.ok()) {
    return Failed(row,
                  solver.status().code() == absl::StatusCode::kUnimplemented
                      ? RunStatus::kUnavailable
                      : RunStatus::kFailed,
                  solver.status());
  }
  solvers::SolverBudget budget;
  budget.wall_time = options.wall_time;
  budget.threads = options.threads;
  budget.seed = options.seed;
  budget.on_progress = [&](const solvers::SolverProgress& progress) {
    row.evaluations = progress.evaluations;
    if (convergence != nullptr) {
      convergence->push_back({workload.name, solver_name,
                              progress.elapsed_seconds, progress.evaluations,
                              progress.best_normalised_return,
                              progress.recent_normalised_return});
    }
  };
  const auto start = Clock::now();
  absl::StatusOr<Solution> solution =
      (*solver)->Solve(workload.program, budget);
  row.wall_seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  if (!solution.ok()) {
    return Failed(row,
                  solution.status().code() == absl::StatusCode::kUnimplemented
                      ? RunStatus::kUnavailable
                      : RunStatus::kFailed,
                  solution.status());
  }
  absl::StatusOr<validate::Evaluation> evaluation =
      validate::EvaluateSolution(workload.workload, *solution);
  if (!evaluation.ok()) {
    return Failed(
        row,
        evaluation.status().code() == absl::StatusCode::kFailedPrecondition
            ? RunStatus::kInvalid
            : RunStatus::kFailed,
        evaluation.status());
  }
  const validate::ValidationReport& report = evaluation->validation;
  row.normalised_return = report.normalised_return;
  row.modelled_latency_us = report.latency_us;
  row.all_slow_latency_us = report.all_slow_latency_us;
  row.simulated_latency_us = evaluation->simulation.latency_us;
  row.drop_backups = solution->drop_backups();
  return row;
}

void FillSpeedUps(std::vector<QualityRow>& rows) {
  std::map<std::string, const QualityRow*> heuristic;
  for (const QualityRow& row : rows) {
    if (row.solver == "heuristic" && row.status == RunStatus::kOk) {
      heuristic[row.workload] = &row;
    }
  }
  for (QualityRow& row : rows) {
    const auto it = heuristic.find(row.workload);
    if (row.status != RunStatus::kOk || it == heuristic.end()) continue;
    row.speedup_over_heuristic = validate::SpeedUp(
        it->second->simulated_latency_us, row.simulated_latency_us);
    row.speedup_over_heuristic_modelled = validate::SpeedUp(
        it->second->modelled_latency_us, row.modelled_latency_us);
  }
}

}  // namespace mmapzero::bench
