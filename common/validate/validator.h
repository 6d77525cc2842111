// The independent solution validator (rules §5). It re-derives every
// rule from the Workload proto alone, never through the game engine, so the
// two check each other:
//  - the decision list: every buffer exactly once, in decision order;
//  - each decision replayed in order (decision_replay.h): fields consistent
//    with its action, offsets in range and aligned, copy steps sharing at
//    most one step with any other, supply never overdrawn, alias groups all
//    slow or all fast at one offset, NoCopy operands extending an earlier
//    allocation of their tensor in place, and copy steps / offsets being the
//    ones the rules choose (latest start, earliest end, lowest offset);
//  - no two allocations overlapping in time x bytes (overlap_sweep.h).
// It recomputes return, normalised return and latency from the decisions.
//
// The solution's own return_us / normalised_return / latency_us are compared
// with the recomputation (tolerance 1e-6 * max(1, |stated|, |recomputed|));
// a disagreement is a warning, not a violation: the figures are a solver's
// bookkeeping, the recomputation is what counts. A solution stating all
// three as 0 states none and is not compared.
#ifndef MMAPZERO_COMMON_VALIDATE_VALIDATOR_H_
#define MMAPZERO_COMMON_VALIDATE_VALIDATOR_H_

#include "common/validate/validation_report.h"
#include "proto/solution.pb.h"
#include "proto/workload.pb.h"

namespace mmapzero::validate {

// Never fails: a workload that does not pass CheckWorkload gives a report
// with one kRuleWorkload violation and no figures.
ValidationReport ValidateSolution(const Workload& workload,
                                  const Solution& solution);

}  // namespace mmapzero::validate

#endif  // MMAPZERO_COMMON_VALIDATE_VALIDATOR_H_
