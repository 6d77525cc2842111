#include "common/model/self_play.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/check.h"
#include "common/features/feature_extractor.h"
#include "common/search/temperature.h"
#include "common/solvers/search_budget.h"

namespace mmapzero::model {
namespace {

// Every tensor of the network's state (parameters, then buffers), in a
// fixed order.
std::vector<torch::Tensor> StateTensors(const MuZeroNetwork& network) {
  std::vector<torch::Tensor> tensors = network->parameters();
  for (const torch::Tensor& buffer : network->buffers()) {
    tensors.push_back(buffer);
  }
  return tensors;
}

}  // namespace

void PublishedParameters::Publish(const MuZeroNetwork& network,
                                  int64_t version) {
  std::vector<torch::Tensor> copies;
  {
    torch::NoGradGuard no_grad;
    for (const torch::Tensor& tensor : StateTensors(network)) {
      copies.push_back(tensor.detach().clone());
    }
  }
  absl::MutexLock lock(&mu_);
  tensors_ = std::move(copies);
  version_ = version;
}

bool PublishedParameters::CopyIfNewer(MuZeroNetwork& network,
                                      int64_t* version) const {
  absl::MutexLock lock(&mu_);
  if (version_ <= *version) return false;
  std::vector<torch::Tensor> targets = StateTensors(network);
  MMAPZERO_CHECK(targets.size() == tensors_.size(),
                 "published parameters are of another architecture");
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < targets.size(); ++i) targets[i].copy_(tensors_[i]);
  *version = version_;
  return true;
}

int64_t PublishedParameters::version() const {
  absl::MutexLock lock(&mu_);
  return version_;
}

ObservationShape ShapeOf(const FeatureConfig& config) {
  return ObservationShape{.time_bins = config.occupancy_time_bins(),
                          .byte_bins = config.occupancy_byte_bins(),
                          .vector_size = features::VectorSize(config)};
}

absl::StatusOr<std::unique_ptr<SelfPlay>> SelfPlay::Create(
    std::shared_ptr<const game::Program> program, MuZeroNetwork network,
    Options options) {
  const ObservationShape want = ShapeOf(options.config.features());
  const ObservationShape& have = network->shape();
  if (have.time_bins != want.time_bins || have.byte_bins != want.byte_bins ||
      have.vector_size != want.vector_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "self-play: the network's observation shape (", have.time_bins, "x",
        have.byte_bins, ", ", have.vector_size,
        ") does not match the feature config (", want.time_bins, "x",
        want.byte_bins, ", ", want.vector_size, ")"));
  }
  if (options.config.search().batch_games() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("self-play: search.batch_games must be >= 1, got ",
                     options.config.search().batch_games()));
  }
  return std::unique_ptr<SelfPlay>(
      new SelfPlay(std::move(program), std::move(network), std::move(options)));
}

SelfPlay::SelfPlay(std::shared_ptr<const game::Program> program,
                   MuZeroNetwork network, Options options)
    : program_(std::move(program)),
      network_(std::move(network)),
      options_(std::move(options)),
      evaluator_(network_),
      observed_(&evaluator_, /*observer=*/{}),
      search_(options_.config.search(), &observed_,
              [features = options_.config.features()](
                  const game::MMapGame& game, features::Observation* out) {
                features::Observe(game, features, out);
              }) {
  live_.resize(options_.config.search().batch_games());
  for (Live& live : live_) StartGame(&live);
}

void SelfPlay::StartGame(Live* live) {
  live->game =
      std::make_unique<game::MMapGame>(program_, options_.game_options);
  live->trajectory = agent::Trajectory{};
  live->trajectory.parameter_version = parameter_version_;
  live->game_index = games_started_++;
}

void SelfPlay::FinishGame(Live* live) {
  const game::MMapGame& game = *live->game;
  agent::Trajectory& trajectory = live->trajectory;
  trajectory.normalised_return = game.NormalisedReturn();
  trajectory.drop_backups = game.drop_backups();
  ++counters_.games;
  // A game that ended infeasible (Drop-backup off) has no solution.
  if (!game.infeasible() &&
      (!best_.has_value() || game.Return() > best_->return_us())) {
    best_ = game.ToSolution();
  }
  if (options_.sink) options_.sink(game, std::move(trajectory));
  StartGame(live);
}

void SelfPlay::Step() {
  game_ptrs_.clear();
  seeds_.clear();
  for (const Live& live : live_) {
    game_ptrs_.push_back(live.game.get());
    seeds_.push_back(
        solvers::MixSeed(options_.seed, live.game_index,
                         static_cast<uint64_t>(live.trajectory.steps.size())));
  }
  const SearchConfig& search = options_.config.search();
  search_.Run(game_ptrs_, seeds_,
              search::VisitTemperature(search, parameter_version_), &results_);
  if (search.mode() != SearchConfig::POLICY_ONLY) {
    counters_.simulations +=
        static_cast<int64_t>(search.simulations()) * live_.size();
  }
  for (size_t i = 0; i < live_.size(); ++i) {
    Live& live = live_[i];
    const search::SearchResult& result = results_[i];
    agent::TrajectoryStep step;
    features::Observe(*live.game, options_.config.features(), &observation_);
    step.observation = agent::Compact(observation_);
    step.buffer = live.game->CurrentBuffer();
    step.action = static_cast<uint8_t>(result.action);
    step.legal_mask = result.legal_mask;
    step.root_value = result.root_value;
    step.policy = result.policy;
    const game::StepResult applied = live.game->ApplyAction(result.action);
    step.reward = static_cast<float>(applied.transition_reward());
    live.trajectory.episode_return += applied.transition_reward();
    if (applied.backed_up) ++counters_.drop_backups;
    live.trajectory.steps.push_back(std::move(step));
    ++counters_.moves;
    if (live.game->IsTerminal()) FinishGame(&live);
  }
}

void SelfPlay::PlayGames(int64_t games) {
  const int64_t target = counters_.games + games;
  while (counters_.games < target) Step();
}

bool SelfPlay::SyncParameters(const PublishedParameters& parameters) {
  return parameters.CopyIfNewer(network_, &parameter_version_);
}

}  // namespace mmapzero::model
