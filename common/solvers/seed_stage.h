// The combination's first stage: another solver (BRKGA, ES, the portfolio)
// plays for a share of the budget in the heuristic's place, and the agent
// starts its games from that stage's best. Both the in-process muzero
// solver and `mmapctl solve --solver muzero` on the local cluster read it
// from the same two settings, so one command line means the same in both:
//   seed_solver   the stage's solver                default heuristic
//   seed_share    its share of the wall-time budget  default 0.5, <= 0.9
// Results keep the parts apart: what the stage reached and what the
// agent's own games reached (docs/agent.md, "The combination").
#ifndef MMAPZERO_COMMON_SOLVERS_SEED_STAGE_H_
#define MMAPZERO_COMMON_SOLVERS_SEED_STAGE_H_

#include <string>

#include "absl/status/statusor.h"
#include "common/solvers/solver.h"

namespace mmapzero::solvers {

struct SeedStage {
  std::string solver = "heuristic";
  double share = 0.5;  // measured: docs/benchmarks.md, the 600-s rows

  // Whether a search plays first, rather than the heuristic alone.
  bool searches() const { return solver != "heuristic"; }
};

// Reads seed_solver and seed_share and removes them from `settings` (so a
// reader of the rest can refuse unknown keys). InvalidArgument naming the
// setting: an unknown solver, muzero itself, a share outside [0, 0.9].
absl::StatusOr<SeedStage> TakeSeedStage(const std::string& solver_name,
                                        SolverSettings& settings);

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_SEED_STAGE_H_
