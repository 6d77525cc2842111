// The coordinator keeps a solution as a job's best only after replaying it
// through the independent validator (common/validate), never on a worker's
// word; and it seeds every job with the heuristic's solution at submission
// (the paper's MMap-MuZero-prod: the agent's result is never worse than the
// heuristic's), so a job has a valid best from its first second.
#ifndef MMAPZERO_COORDINATOR_VERIFIED_SOLUTION_H_
#define MMAPZERO_COORDINATOR_VERIFIED_SOLUTION_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "proto/solution.pb.h"
#include "proto/workload.pb.h"

namespace mmapzero::coordinator {

// `solution` with return_us, normalised_return and latency_us replaced by
// the validator's recomputation and simulated_latency_us set by the latency
// simulator; InvalidArgument naming the number of violations and the first
// ("2 violations, first: [rule] buffer 7: ...") when it breaks a rule.
absl::StatusOr<Solution> VerifySolution(const Workload& workload,
                                        Solution solution);

// The solution of a checked workload by the solver `solver` (the
// coordinator's seed solver: "heuristic" unless configured otherwise)
// within `budget`, verified; the solver stops early, with its best so far,
// once `stop_requested` (when set) answers true. Internal when the solver
// fails or its solution does not validate.
absl::StatusOr<Solution> SolveSeed(
    const Workload& workload, const std::string& solver,
    absl::Duration budget, const std::function<bool()>& stop_requested);

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_VERIFIED_SOLUTION_H_
