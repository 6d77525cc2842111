#include "common/training/policy_solver.h"

#include <torch/torch.h>

#include <algorithm>
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
  ASSIGN_OR_RETURN(const int64_t samples, reader.GetInt("samples", 0, 0, 4096));
  ASSIGN_OR_RETURN(const double temperature,
                   reader.GetDouble("temperature", 1.0, 1e-3, 100.0));
  RETURN_IF_ERROR(reader.CheckNoUnknownKeys());
  if (simulations > 0 && samples > 0) {
    return absl::InvalidArgumentError(
        "policy: samples: not with simulations (draws games from the policy "
        "alone)");
  }
  absl::StatusOr<MuZeroConfig> config =
      features::LoadMuZeroConfig(split.config, split.overrides);
  if (!config.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "policy: config=", split.config, ": ", config.status().message()));
  }
  effective["config"] = split.config;
  effective.insert(reader.effective().begin(), reader.effective().end());
  return std::unique_ptr<PolicySolver>(new PolicySolver(
      *std::move(config), std::move(network), static_cast<int>(simulations),
      static_cast<int>(samples), temperature, std::move(effective)));
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
  solvers::BestSolution best;
  int64_t games = 0;
  if (samples_ == 0) {
    const PolicyGame played =
        simulations_ == 0 ? PlayPolicy(program, config_.features(), evaluator)
                          : PlaySearched(program, config_, simulations_,
                                         budget.seed, evaluator);
    best.Offer(*played.game);
    games = 1;
  } else {
    // The greedy game first, alone, so that it is always the answer's
    // floor; then rounds of up to kLockstepGames drawn games, each as
    // large as the wall time left allows at the pace of the round before.
    constexpr int64_t kLockstepGames = 16;
    absl::Duration per_game;
    for (int round = 0; games < 1 + samples_; ++round) {
      int64_t count = 1;
      if (round > 0) {
        const absl::Duration left = budget.wall_time - (absl::Now() - start);
        count = std::min<int64_t>({kLockstepGames, 1 + samples_ - games,
                                   static_cast<int64_t>(left / per_game)});
        if (count < 1 || budget.asked_to_stop()) break;
      }
      const absl::Time round_start = absl::Now();
      for (const PolicyGame& played :
           PlaySampled(program, config_.features(), evaluator,
                       static_cast<int>(count), /*first_greedy=*/round == 0,
                       temperature_, budget.seed + 1'000'003ULL * round)) {
        best.Offer(*played.game);
      }
      games += count;
      per_game = (absl::Now() - round_start) / count;
      if (budget.on_progress) {
        budget.on_progress(
            {.elapsed_seconds = absl::ToDoubleSeconds(absl::Now() - start),
             .evaluations = games,
             .best_normalised_return = best.normalised_return()});
      }
    }
  }
  if (budget.on_progress) {
    budget.on_progress(
        {.elapsed_seconds = absl::ToDoubleSeconds(absl::Now() - start),
         .evaluations = games,
         .best_normalised_return = best.normalised_return()});
  }
  return best.Finish(name(), effective, budget, games,
                     absl::ToDoubleSeconds(absl::Now() - start));
}

absl::StatusOr<std::unique_ptr<solvers::Solver>> MakePolicySolver(
    const SolverSettings& settings) {
  ASSIGN_OR_RETURN(auto solver, PolicySolver::Create(settings));
  return std::unique_ptr<solvers::Solver>(std::move(solver));
}

}  // namespace mmapzero::training
