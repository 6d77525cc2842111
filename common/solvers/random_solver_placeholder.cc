#include "common/solvers/solver_factories.h"

namespace mmapzero::solvers {

// Placeholder until this solver lands; its own file replaces this one.
absl::StatusOr<std::unique_ptr<Solver>> MakeRandomSolver(const SolverSettings&) {
  return absl::UnimplementedError("solver not available yet");
}

}  // namespace mmapzero::solvers
