#include "common/training/policy_solver.h"

#include <torch/torch.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/base/status_macros.h"
#include "common/features/config_presets.h"
#include "common/model/network_checkpoint.h"
#include "common/model/network_evaluator.h"
#include "common/model/networks.h"
#include "common/solvers/best_solution.h"
#include "common/solvers/solver_settings.h"
#include "common/training/initial_network.h"
#include "common/training/policy_play.h"

namespace mmapzero::training {

using solvers::SolverBudget;
using solvers::SolverSettings;

absl::StatusOr<std::unique_ptr<PolicySolver>> PolicySolver::Create(
    const SolverSettings& settings) {
  features::MuZeroConfigSettings split =
      features::SplitMuZeroConfigSettings(settings);
  SolverSettings effective;
  std::string network;  // the default where it fits
  if (const auto it = split.rest.find("network"); it != split.rest.end()) {
    if (it->second.empty()) {
      return absl::InvalidArgumentError(
          "policy: network: needs a network file, default or none");
    }
    network = it->second;
    split.rest.erase(it);
  }
  solvers::SettingsReader reader("policy", split.rest);
  ASSIGN_OR_RETURN(const int64_t simulations,
                   reader.GetInt("simulations", 0, 0, 64));
  RETURN_IF_ERROR(reader.CheckNoUnknownKeys());
  absl::StatusOr<MuZeroConfig> config =
      features::LoadMuZeroConfig(split.config, split.overrides);
  if (!config.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "policy: config=", split.config, ": ", config.status().message()));
  }
  effective["config"] = split.config;
  effective.insert(reader.effective().begin(), reader.effective().end());
  return std::unique_ptr<PolicySolver>(
      new PolicySolver(*std::move(config), std::move(network),
                       static_cast<int>(simulations), std::move(effective)));
}

absl::Status PolicySolver::Refused(const absl::Status& status) const {
  return absl::Status(status.code(),
                      absl::StrCat("policy: config=", effective_.at("config"),
                                   ": ", status.message()));
}

absl::StatusOr<Solution> PolicySolver::Solve(
    const std::shared_ptr<const game::Program>& program,
    const SolverBudget& budget) {
  const absl::Time start = absl::Now();
  // The network's own sizes (a file's, or the config's) with the config's
  // observations: a file of another feature hash is refused by the load.
  NetworkConfig sizes = config_.network();
  if (features::NamesNetworkFile(network_)) {
    absl::StatusOr<model::CheckpointHeader> header =
        model::ReadCheckpointHeader(network_);
    if (!header.ok()) return Refused(header.status());
    sizes = header->config;
  }
  torch::manual_seed(budget.seed);
  absl::StatusOr<model::MuZeroNetwork> network = model::CreateNetwork(
      sizes, model::ShapeOf(config_.features()), torch::kCPU);
  if (!network.ok()) return Refused(network.status());
  absl::StatusOr<std::string> loaded = LoadNetworkByName(network_, *network);
  if (!loaded.ok()) return Refused(loaded.status());
  SolverSettings effective = effective_;
  effective["network"] = *loaded;
  model::NetworkEvaluator evaluator(*network);
  const PolicyGame played =
      simulations_ == 0
          ? PlayPolicy(program, config_.features(), evaluator)
          : PlaySearched(program, config_, simulations_, budget.seed,
                         evaluator);
  solvers::BestSolution best;
  best.Offer(*played.game);
  if (budget.on_progress) {
    budget.on_progress({.elapsed_seconds = absl::ToDoubleSeconds(absl::Now() - start),
                        .evaluations = 1,
                        .best_normalised_return = best.normalised_return()});
  }
  return best.Finish(name(), effective, budget, /*evaluations=*/1,
                     absl::ToDoubleSeconds(absl::Now() - start));
}

absl::StatusOr<std::unique_ptr<solvers::Solver>> MakePolicySolver(
    const SolverSettings& settings) {
  ASSIGN_OR_RETURN(auto solver, PolicySolver::Create(settings));
  return std::unique_ptr<solvers::Solver>(std::move(solver));
}

}  // namespace mmapzero::training
