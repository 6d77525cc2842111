// Where a search starts (the `start` setting of es, brkga and race):
//   heuristic  (default) the heuristic's plan: it is played first, inside
//              the search's wall time, and the search starts from its
//              solution (BRKGA: a chromosome of the first generation; ES:
//              the mean of its distribution), so the search never ends
//              below the plan it starts from. This is where the agent's own
//              jobs start too, so the baselines compete from the same place.
//   none       the search's own greedy start (ES: NoCopy before Copy before
//              Drop for every buffer; BRKGA: the fast-first and copy-first
//              chromosomes).
#ifndef MMAPZERO_COMMON_SOLVERS_SEARCH_START_H_
#define MMAPZERO_COMMON_SOLVERS_SEARCH_START_H_

#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "common/game/program.h"
#include "common/solvers/solver.h"
#include "common/solvers/solver_settings.h"
#include "proto/solution.pb.h"

namespace mmapzero::solvers {

enum class SearchStart { kHeuristic, kNone };

// Reads `start` ("heuristic" or "none"); InvalidArgument names the value.
absl::StatusOr<SearchStart> ReadSearchStart(SettingsReader& reader);

// The heuristic's solution when `start` is kHeuristic, else nullopt; the
// heuristic gets at most half of `budget`'s wall time.
absl::StatusOr<std::optional<Solution>> PlaySearchStart(
    SearchStart start, const std::shared_ptr<const game::Program>& program,
    const SolverBudget& budget);

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_SEARCH_START_H_
