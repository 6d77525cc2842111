// Matches a solution's decisions to the workload's buffers and checks the
// list itself: every buffer decided exactly once, in decision order (rules §3,
// proto/solution.proto). The replay then reads decisions by buffer id.
#ifndef MMAPZERO_COMMON_VALIDATE_DECISION_LIST_H_
#define MMAPZERO_COMMON_VALIDATE_DECISION_LIST_H_

#include <vector>

#include "absl/types/span.h"
#include "common/validate/validation_report.h"
#include "proto/solution.pb.h"
#include "proto/workload.pb.h"

namespace mmapzero::validate {

// The decision of each buffer (by id), or null when the solution has none;
// a buffer decided twice keeps its first decision. Appends to `violations`:
// unknown buffer ids, repeats, missing buffers, and, when the list is a
// permutation of the buffers, the first place it leaves `decision_order`.
std::vector<const BufferDecision*> IndexDecisions(
    const Workload& workload, const Solution& solution,
    absl::Span<const int> decision_order, std::vector<Violation>* violations);

}  // namespace mmapzero::validate

#endif  // MMAPZERO_COMMON_VALIDATE_DECISION_LIST_H_
