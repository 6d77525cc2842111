// Which of two solutions of one workload is better, as users judge it: the
// lower simulated latency (Solution.simulated_latency_us, the latency
// simulator's figure), a tie within kLatencyTolerance broken by the higher
// return. A solution without a simulated figure (0) is compared by return
// alone, as everything was before latency became the yardstick.
#ifndef MMAPZERO_COMMON_VALIDATE_FASTER_SOLUTION_H_
#define MMAPZERO_COMMON_VALIDATE_FASTER_SOLUTION_H_

#include "absl/status/statusor.h"
#include "proto/solution.pb.h"
#include "proto/workload.pb.h"

namespace mmapzero::validate {

// Latencies this close (relative) are a tie.
inline constexpr double kLatencyTolerance = 1e-9;
// Returns (normalised) this close are a tie.
inline constexpr double kReturnTolerance = 1e-9;

// Whether `a` is strictly better than `b`.
bool FasterThan(const Solution& a, const Solution& b);

// `solution` with simulated_latency_us set by the latency simulator (the
// solution must be valid for `workload`; the simulator's errors otherwise).
absl::StatusOr<Solution> WithSimulatedLatency(const Workload& workload,
                                              Solution solution);

}  // namespace mmapzero::validate

#endif  // MMAPZERO_COMMON_VALIDATE_FASTER_SOLUTION_H_
