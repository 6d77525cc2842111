// One factory per solver, each defined in that solver's own file; the
// registry (solver_registry.cc) lists them explicitly. Not for direct use:
// call MakeSolver (solver.h).
#ifndef MMAPZERO_COMMON_SOLVERS_SOLVER_FACTORIES_H_
#define MMAPZERO_COMMON_SOLVERS_SOLVER_FACTORIES_H_

#include <memory>

#include "absl/status/statusor.h"
#include "common/solvers/solver.h"

namespace mmapzero::solvers {

absl::StatusOr<std::unique_ptr<Solver>> MakeHeuristicSolver(
    const SolverSettings& settings);
absl::StatusOr<std::unique_ptr<Solver>> MakeEvolutionSolver(
    const SolverSettings& settings);
absl::StatusOr<std::unique_ptr<Solver>> MakeBrkgaSolver(
    const SolverSettings& settings);
absl::StatusOr<std::unique_ptr<Solver>> MakeRandomSolver(
    const SolverSettings& settings);
absl::StatusOr<std::unique_ptr<Solver>> MakeDropAllSolver(
    const SolverSettings& settings);
absl::StatusOr<std::unique_ptr<Solver>> MakePortfolioSolver(
    const SolverSettings& settings);
absl::StatusOr<std::unique_ptr<Solver>> MakeRaceSolver(
    const SolverSettings& settings);

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_SOLVER_FACTORIES_H_
