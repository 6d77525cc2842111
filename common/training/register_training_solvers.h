// Adds the solvers that need LibTorch (today `muzero`) to the solver
// registry (common/solvers/solver.h, RegisterSolver). Binaries linked with
// mmapzero_model call it once at startup, before MakeSolver; it is an
// explicit call because static self-registration is dropped by static
// libraries. Idempotent and thread-safe.
#ifndef MMAPZERO_COMMON_TRAINING_REGISTER_TRAINING_SOLVERS_H_
#define MMAPZERO_COMMON_TRAINING_REGISTER_TRAINING_SOLVERS_H_

namespace mmapzero::training {

void RegisterTrainingSolvers();

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_REGISTER_TRAINING_SOLVERS_H_
