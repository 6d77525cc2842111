#include "common/solvers/seed_stage.h"

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/solvers/solver_settings.h"

namespace mmapzero::solvers {

absl::StatusOr<SeedStage> TakeSeedStage(const std::string& solver_name,
                                        SolverSettings& settings) {
  SeedStage stage;
  if (const auto it = settings.find("seed_solver"); it != settings.end()) {
    stage.solver = it->second;
    settings.erase(it);
    if (stage.solver == "muzero" || !MakeSolver(stage.solver, {}).ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          solver_name, ": setting seed_solver: no such solver to seed with: '",
          stage.solver, "'"));
    }
  }
  SolverSettings share;
  if (const auto it = settings.find("seed_share"); it != settings.end()) {
    share.insert(*it);
    settings.erase(it);
  }
  SettingsReader reader(solver_name, share);
  ASSIGN_OR_RETURN(stage.share, reader.GetDouble("seed_share", 0.5, 0.0, 0.9));
  return stage;
}

}  // namespace mmapzero::solvers
