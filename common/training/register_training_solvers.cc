#include "common/training/register_training_solvers.h"

#include "common/solvers/solver.h"
#include "common/training/muzero_solver.h"
#include "common/training/policy_solver.h"

namespace mmapzero::training {

void RegisterTrainingSolvers() {
  solvers::RegisterSolver("muzero", MakeMuZeroSolver);
  solvers::RegisterSolver("policy", MakePolicySolver);
}

}  // namespace mmapzero::training
