// What `mmapctl evaluate` reports for a valid solution: the validator's
// recomputed figures, the latency simulator's replay, and the speed-up over
// running the whole program from slow memory (all-slow latency / latency),
// both under the latency model and as simulated.
#ifndef MMAPZERO_COMMON_VALIDATE_EVALUATION_H_
#define MMAPZERO_COMMON_VALIDATE_EVALUATION_H_

#include "absl/status/statusor.h"
#include "common/validate/latency_simulator.h"
#include "common/validate/validation_report.h"
#include "proto/solution.pb.h"
#include "proto/workload.pb.h"

namespace mmapzero::validate {

struct Evaluation {
  ValidationReport validation;
  SimulationResult simulation;
  double speedup_modelled = 1.0;   // all-slow latency / modelled latency
  double speedup_simulated = 1.0;  // all-slow latency / simulated latency
};

// all_slow / latency; 1 when both are 0, +infinity when only latency is.
double SpeedUp(double all_slow_latency_us, double latency_us);

// OK for a valid report; FailedPrecondition naming its first violations
// otherwise ("the solution is invalid (N violations): ...").
absl::Status InvalidSolutionError(const ValidationReport& report);

// FailedPrecondition naming the first violations when the solution is
// invalid (InvalidSolutionError; evaluating an invalid solution would report
// figures no engine can reach); the simulator's errors otherwise.
absl::StatusOr<Evaluation> EvaluateSolution(const Workload& workload,
                                            const Solution& solution);

}  // namespace mmapzero::validate

#endif  // MMAPZERO_COMMON_VALIDATE_EVALUATION_H_
