// One cell of the quality table: one solver on one workload under a wall
// budget, its solution validated independently and replayed in the latency
// simulator. A solver that is not available yet (Unimplemented) or fails
// gives a row with a status and no figures, never an abort.
#ifndef MMAPZERO_BENCH_QUALITY_QUALITY_RUN_H_
#define MMAPZERO_BENCH_QUALITY_QUALITY_RUN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "bench/quality/quality_workloads.h"

namespace mmapzero::bench {

enum class RunStatus { kOk, kUnavailable, kFailed, kInvalid };

struct QualityRow {
  std::string workload;
  int32_t buffers = 0;
  std::string solver;
  RunStatus status = RunStatus::kOk;
  std::string message;  // why, when not kOk
  double wall_seconds = 0;
  int64_t evaluations = 0;  // from the solver's last progress report
  double normalised_return = 0;
  double modelled_latency_us = 0;   // validator's sum_t L_t(S_t)
  double simulated_latency_us = 0;  // latency simulator
  double all_slow_latency_us = 0;
  int32_t drop_backups = 0;
  // Heuristic latency / this latency, simulated and modelled; 0 when the
  // heuristic has no figures on this workload (FillSpeedUps).
  double speedup_over_heuristic = 0;
  double speedup_over_heuristic_modelled = 0;
  // The workload's optimality bound (normalised; quality_bench
  // --bound-seconds); negative when it was not computed or not in time.
  double bound = -1;

  double evaluations_per_second() const {
    return wall_seconds > 0 ? evaluations / wall_seconds : 0;
  }
};

// One progress report of a solver run (solver.h SolverProgress), kept for
// the convergence plot.
struct ConvergencePoint {
  std::string workload;
  std::string solver;
  double elapsed_seconds = 0;
  int64_t evaluations = 0;
  double best_normalised_return = 0;
  double recent_normalised_return = -1;  // negative: not reported
};

struct QualityRunOptions {
  absl::Duration wall_time = absl::Seconds(10);
  int threads = 2;
  uint64_t seed = 1;
};

// Runs `solver` on `workload`; appends its progress reports to
// `convergence` when that is not null.
QualityRow RunQualityCell(const std::string& solver,
                          const QualityWorkload& workload,
                          const QualityRunOptions& options,
                          std::vector<ConvergencePoint>* convergence);

// Sets every row's speed-up over the "heuristic" row of its workload.
void FillSpeedUps(std::vector<QualityRow>& rows);

}  // namespace mmapzero::bench

#endif  // MMAPZERO_BENCH_QUALITY_QUALITY_RUN_H_
