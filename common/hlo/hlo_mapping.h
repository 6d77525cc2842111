// A module's own placement (HloImportResult::mapping: its `S(n)` layouts
// and copy-start/copy-done transfers, one action per buffer) as a solution
// of the workload it imports as: the actions played through the game in
// decision order, so that offsets, intervals and copy steps are the rules'
// (rules §4). Where the module's placement does not follow the game's rules
// (another offset policy, a copy the game would not make), the action
// cannot be played: the nearest legal one is (NoCopy for Copy and back,
// else Drop), and the change is counted.
//
// A module `mmapctl export` wrote plays back to the exported solution; one
// from XLA's own memory-space assignment gives XLA's answer as far as the
// game can follow it.
#ifndef MMAPZERO_COMMON_HLO_HLO_MAPPING_H_
#define MMAPZERO_COMMON_HLO_HLO_MAPPING_H_

#include <vector>

#include "absl/status/statusor.h"
#include "proto/solution.pb.h"
#include "proto/workload.pb.h"

namespace mmapzero::hlo {

struct MappedSolution {
  Solution solution;  // solver "hlo-mapping"
  int changed = 0;    // actions the game could not play as the module has them
  int copies = 0, no_copies = 0, drops = 0;  // the module's own actions
};

// `mapping` has one action per buffer of `workload`.
absl::StatusOr<MappedSolution> SolutionFromMapping(
    const Workload& workload, const std::vector<Action>& mapping);

}  // namespace mmapzero::hlo

#endif  // MMAPZERO_COMMON_HLO_HLO_MAPPING_H_
