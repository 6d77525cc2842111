#include "common/model/register_model_solvers.h"

#include "common/model/muzero_solver.h"
#include "common/solvers/solver.h"

namespace mmapzero::model {

void RegisterModelSolvers() {
  solvers::RegisterSolver("muzero", MakeMuZeroSolver);
}

}  // namespace mmapzero::model
