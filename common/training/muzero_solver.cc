#include "common/training/muzero_solver.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/features/config_presets.h"
#include "common/solvers/search_budget.h"
#include "common/solvers/seed_stage.h"
#include "common/solvers/solver_settings.h"
#include "common/training/muzero_run.h"

namespace mmapzero::training {

using solvers::SolverBudget;
using solvers::SolverSettings;

absl::StatusOr<std::unique_ptr<MuZeroSolver>> MuZeroSolver::Create(
    const SolverSettings& settings) {
  features::MuZeroConfigSettings split =
      features::SplitMuZeroConfigSettings(settings);
  RETURN_IF_ERROR(features::TakeInitialNetwork(&split));
  const std::string& preset = split.config;
  const std::vector<std::string>& overrides = split.overrides;
  SolverSettings& rest = split.rest;
  SolverSettings effective;
  for (const auto& [key, value] : settings) {
    if (key.find('.') != std::string::npos || key == "network") {
      effective[key] = value;
    }
  }
  std::string checkpoint;
  if (const auto it = rest.find("checkpoint"); it != rest.end()) {
    if (it->second.empty()) {
      return absl::InvalidArgumentError(
          "muzero: checkpoint: needs a directory (checkpoint=DIR)");
    }
    checkpoint = it->second;
    effective["checkpoint"] = checkpoint;
    rest.erase(it);
  }
  absl::StatusOr<MuZeroConfig> config =
      features::LoadMuZeroConfig(preset, overrides);
  if (!config.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "muzero: config=", preset, ": ", config.status().message()));
  }
  effective["config"] = preset;
  effective["preset"] = config->preset().empty() ? "none" : config->preset();
  // The combination: another solver (brkga, es, portfolio) plays first for
  // seed_share of the budget in the heuristic's place.
  ASSIGN_OR_RETURN(const solvers::SeedStage seed_stage,
                   solvers::TakeSeedStage("muzero", rest));
  if (seed_stage.searches()) effective["seed_solver"] = seed_stage.solver;
  solvers::SettingsReader reader("muzero", rest);
  ASSIGN_OR_RETURN(const int64_t actors, reader.GetInt("actors", 0, 0, 64));
  ASSIGN_OR_RETURN(const int64_t log, reader.GetInt("log", 1, 0, 1));
  ASSIGN_OR_RETURN(int64_t learn, reader.GetInt("learn", 1, 0, 1));
  if (config->training().no_learning()) learn = 0;  // the config says so
  ASSIGN_OR_RETURN(const int64_t heuristic,
                   reader.GetInt("heuristic", 1, 0, 1));
  RETURN_IF_ERROR(reader.CheckNoUnknownKeys());
  effective["actors"] = actors == 0 ? "auto" : absl::StrCat(actors);
  effective["learn"] = absl::StrCat(learn);
  return std::unique_ptr<MuZeroSolver>(
      new MuZeroSolver(*std::move(config), std::move(effective),
                       MuZeroRunOptions{.actors = static_cast<int>(actors),
                                        .log = log != 0,
                                        .learn = learn != 0,
                                        .heuristic = heuristic != 0,
                                        .seed_solver = seed_stage.solver,
                                        .seed_share = seed_stage.share,
                                        .checkpoint = std::move(checkpoint)}));
}

absl::StatusOr<Solution> MuZeroSolver::Solve(
    const std::shared_ptr<const game::Program>& program,
    const SolverBudget& budget) {
  RETURN_IF_ERROR(solvers::SearchBudget::Check(budget));
  MuZeroRun run(program, config_, options_, budget);
  RETURN_IF_ERROR(run.ReadCheckpoint());
  RETURN_IF_ERROR(run.PlaySeedStage());
  if (run.GamesLeft()) {
    RETURN_IF_ERROR(run.BuildLearner());
    RETURN_IF_ERROR(run.Resume());
    RETURN_IF_ERROR(run.StartActors());
    run.StartLearning();
    run.Play();
  }
  return run.Finish(name(), effective_);
}

absl::StatusOr<std::unique_ptr<solvers::Solver>> MakeMuZeroSolver(
    const SolverSettings& settings) {
  ASSIGN_OR_RETURN(auto solver, MuZeroSolver::Create(settings));
  return std::unique_ptr<solvers::Solver>(std::move(solver));
}

}  // namespace mmapzero::training
