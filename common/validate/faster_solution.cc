#include "common/validate/faster_solution.h"

#include <algorithm>
#include <cmath>

#include "common/base/status_macros.h"
#include "common/validate/latency_simulator.h"

namespace mmapzero::validate {

bool FasterThan(const Solution& a, const Solution& b) {
  const double x = a.simulated_latency_us();
  const double y = b.simulated_latency_us();
  if (x > 0 && y > 0 &&
      std::abs(x - y) > kLatencyTolerance * std::max(x, y)) {
    return x < y;
  }
  return a.normalised_return() > b.normalised_return() + kReturnTolerance;
}

absl::StatusOr<Solution> WithSimulatedLatency(const Workload& workload,
                                              Solution solution) {
  ASSIGN_OR_RETURN(const SimulationResult simulation,
                   SimulateSolution(workload, solution));
  solution.set_simulated_latency_us(simulation.latency_us);
  return solution;
}

}  // namespace mmapzero::validate
