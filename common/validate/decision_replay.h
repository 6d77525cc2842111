// Replays a solution's decisions in decision order against the rules of spec
// section 4, from the workload alone (never through the game engine, which
// this checks). Each decision is checked in the state the solution's own
// earlier decisions left: its fields against its action, its copy steps
// against the pairs already covered and the supply left, its offset against
// the alias group, the tensor's latest allocation (NoCopy operands) or the
// lowest free aligned offset, and its copy steps against the latest start /
// earliest end the rules define. A rule deviation is reported only when the
// solution's own choice was legal, so one mistake yields one violation.
//
// Overlaps of the allocations in time x bytes are not checked here: the
// replay returns the allocations and FindOverlaps (overlap_sweep.h) checks
// them all at once.
#ifndef MMAPZERO_COMMON_VALIDATE_DECISION_REPLAY_H_
#define MMAPZERO_COMMON_VALIDATE_DECISION_REPLAY_H_

#include <vector>

#include "absl/types/span.h"
#include "common/validate/allocation.h"
#include "common/validate/reference_latency.h"
#include "common/validate/validation_report.h"
#include "proto/solution.pb.h"
#include "proto/workload.pb.h"

namespace mmapzero::validate {

struct ReplayResult {
  // The allocations the decisions state (those with an offset and an
  // interval inside the program), in decision order.
  std::vector<Allocation> allocations;
  // Per buffer id: 1 when its decision is COPY or NO_COPY (S_t membership).
  std::vector<char> fast;
  ActionCounts actions;
};

// `decision_of[b]` is buffer b's decision or null (missing: counted as DROP,
// already reported by IndexDecisions). Appends violations in decision order.
ReplayResult ReplayDecisions(
    const Workload& workload, const ReferenceLatency& latency,
    absl::Span<const int> decision_order,
    absl::Span<const BufferDecision* const> decision_of,
    std::vector<Violation>* violations);

}  // namespace mmapzero::validate

#endif  // MMAPZERO_COMMON_VALIDATE_DECISION_REPLAY_H_
