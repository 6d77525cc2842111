#include "common/training/self_play.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/agent/target_scale.h"
#include "common/features/feature_extractor.h"
#include "common/search/temperature.h"
#include "common/solvers/policy.h"
#include "common/solvers/search_budget.h"

namespace mmapzero::training {
namespace {

// Mixed into a move's seed for the playout-cap draw (search or fast move).
constexpr uint64_t kFastMoveSalt = 0xfa57;
// Mixed into a game's seed for the deviation draw.
constexpr uint64_t kDeviationSalt = 0xde71;

// A segment's context: the steps after its positions that their targets
// read (K unroll steps and n-step values).
int32_t ContextSteps(const TrainingConfig& training) {
  return training.unroll_steps() + training.td_steps();
}

}  // namespace

absl::StatusOr<std::unique_ptr<SelfPlay>> SelfPlay::Create(
    std::shared_ptr<const game::Program> program, model::MuZeroNetwork network,
    Options options) {
  const model::ObservationShape want =
      model::ShapeOf(options.config.features());
  const model::ObservationShape& have = network->shape();
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
                   model::MuZeroNetwork network, Options options)
    : program_(std::move(program)),
      network_(std::move(network)),
      options_(std::move(options)),
      evaluator_(network_),
      observed_(&evaluator_, /*observer=*/{}),
      search_(options_.config.search(), &observed_,
              [features = options_.config.features()](
                  const game::MMapGame& game, features::Observation* out) {
                features::Observe(game, features, out);
              }),
      reward_scale_(agent::TargetScale(options_.config.training(), *program_)),
      fresh_(program_, options_.game_options),
      starts_(program_, options_.config.search(), fresh_, &counters_) {
  search_.set_reward_scale(reward_scale_);
  if (options_.start.has_value()) OfferStart(*options_.start);
  if (options_.config.search().best_start_rules() &&
      options_.config.search().best_start_fraction() > 0) {
    PlayRuleStarts();
  }
  live_.resize(options_.config.search().batch_games());
  for (Live& live : live_) StartGame(&live);
}

void SelfPlay::StartGame(Live* live) {
  live->trajectory = agent::Trajectory{};
  live->trajectory.parameter_version = parameter_version_;
  live->game_index = games_started_++;
  live->variation = Variation{};
  live->segmented_steps = 0;
  live->rejoined = false;
  const uint64_t seed = solvers::MixSeed(options_.seed, live->game_index, 0);
  const bool best_start = starts_.StartsFromBest(seed);
  // Copy-assigning a pristine game (or a snapshot) reuses the slot's memory.
  if (live->game == nullptr) {
    live->game = std::make_unique<game::MMapGame>(fresh_);
  } else if (!best_start) {
    *live->game = fresh_;
  }
  if (best_start) {
    live->variation = starts_.Begin(seed, live->game.get());
    live->trajectory.episode_return = live->game->Return();
  }
}

void SelfPlay::PlayRuleStarts() {
  // The greedy rules of BRKGA's first generation (brkga_solver.cc).
  double to_beat = options_.start.has_value()
                       ? options_.start->return_us()
                       : -std::numeric_limits<double>::infinity();
  for (const char* rule : {"fast-first", "copy-first"}) {
    absl::StatusOr<std::unique_ptr<solvers::Policy>> policy =
        solvers::MakePolicy(rule, options_.seed);
    if (!policy.ok()) continue;  // both names are MakePolicy's own
    auto game = std::make_unique<game::MMapGame>(fresh_);
    solvers::PlayOut(*game, **policy);
    if (game->infeasible() || game->Return() <= to_beat) continue;
    to_beat = game->Return();
    rule_start_ = std::move(game);
  }
  if (rule_start_ == nullptr) return;
  best_return_us_ = rule_start_->Return();
  starts_.Adopt(*rule_start_);
}

void SelfPlay::OfferStart(const Solution& solution) { starts_.Offer(solution); }

double SelfPlay::NormalisedReturn(double return_us) const {
  const double max_return = program_->max_return_us();
  return max_return > 0 ? return_us / max_return : 0.0;
}

void SelfPlay::FinishGame(Live* live) {
  const game::MMapGame& game = *live->game;
  agent::Trajectory& trajectory = live->trajectory;
  ++counters_.games;
  // A rejoined game's return is its trajectory's (the estimate); it has no
  // solution. A game that ended infeasible (Drop-backup off) has none
  // either.
  trajectory.normalised_return =
      live->rejoined ? NormalisedReturn(trajectory.episode_return)
                     : game.NormalisedReturn();
  trajectory.drop_backups = game.drop_backups();  // 0 when rejoined
  if (!live->rejoined && !game.infeasible()) {
    if (!best_return_us_.has_value() || game.Return() > *best_return_us_) {
      best_return_us_ = game.Return();
      starts_.Adopt(game);
    }
    if (const game::MMapGame* rebased = starts_.Rebase(game, live->variation)) {
      best_return_us_ = rebased->Return();
      if (options_.solution_sink) options_.solution_sink(*rebased);
    }
  }
  if (options_.sink) options_.sink(game, std::move(trajectory));
  StartGame(live);
}

bool SelfPlay::Deviates(const Live& live) const {
  const double rate = options_.config.search().best_start_deviation_rate();
  const int32_t horizon =
      options_.config.search().best_start_deviation_horizon();
  if (horizon > 0 &&
      live.game->depth() - live.variation.follow_from >= horizon) {
    return false;
  }
  return rate > 0 &&
         solvers::UniformFromSeed(
             solvers::MixSeed(options_.seed, live.game_index,
                              static_cast<uint64_t>(live.game->depth())),
             kDeviationSalt) < rate;
}

void SelfPlay::PlayUnrecordedMoves(Live* live) {
  agent::Trajectory& trajectory = live->trajectory;
  game::MMapGame& game = *live->game;
  Variation& variation = live->variation;
  const bool following =
      variation.follow != nullptr &&
      live->segmented_steps + static_cast<int64_t>(trajectory.steps.size()) >=
          variation.window;
  if (following && variation.follow_from < 0) {
    variation.follow_from = game.depth();
  }
  while (!trajectory.steps.empty() && !game.IsTerminal()) {
    const uint8_t mask = game.LegalActionMask();
    game::Action action;
    if (std::popcount(mask) == 1) {
      action = static_cast<game::Action>(std::countr_zero(mask));
      ++counters_.forced_moves;
    } else if (following && !Deviates(*live)) {
      action = FollowedAction(
          mask, static_cast<game::Action>(
                    variation.follow->action_of[game.CurrentBuffer()]));
      ++counters_.followed_moves;
    } else {
      break;  // the agent decides
    }
    starts_.NoteFollowedMove(game, action, &variation);
    const game::StepResult applied = game.ApplyAction(action);
    // Folded into the transition INTO the next decision (see the header).
    trajectory.steps.back().reward +=
        static_cast<float>(reward_scale_ * applied.transition_reward());
    trajectory.episode_return += applied.transition_reward();
    if (applied.backed_up) ++counters_.drop_backups;
    ++counters_.moves;
    if (!following) continue;
    if (const std::optional<double> rest = starts_.Rejoin(game, &variation)) {
      // Ends here: the best game's return from here on is this one's.
      trajectory.steps.back().reward +=
          static_cast<float>(reward_scale_ * *rest);
      trajectory.episode_return += *rest;
      trajectory.rejoined = true;
      live->rejoined = true;
      return;
    }
  }
}

void SelfPlay::Step() {
  if (rule_start_ != nullptr) {
    if (options_.solution_sink) options_.solution_sink(*rule_start_);
    rule_start_.reset();
  }
  // Moves with one legal action need no network: play them first.
  for (Live& live : live_) {
    PlayUnrecordedMoves(&live);
    if (live.game->IsTerminal() || live.rejoined) FinishGame(&live);
  }
  const SearchConfig& search = options_.config.search();
  searched_.clear();
  fast_.clear();
  for (size_t i = 0; i < live_.size(); ++i) {
    const Live& live = live_[i];
    const uint64_t seed =
        solvers::MixSeed(options_.seed, live.game_index,
                         static_cast<uint64_t>(live.segmented_steps +
                                               live.trajectory.steps.size()));
    bool fast = search.mode() == SearchConfig::POLICY_ONLY;
    if (!fast && search.fast_move_fraction() > 0) {
      fast = solvers::UniformFromSeed(seed, kFastMoveSalt) <
             search.fast_move_fraction();
    }
    (fast ? fast_ : searched_).push_back({static_cast<int>(i), seed});
  }
  if (!searched_.empty()) SearchMoves();
  if (!fast_.empty()) FastMoves();
  for (Live& live : live_) {
    if (live.game->IsTerminal()) FinishGame(&live);
  }
}

void SelfPlay::SearchMoves() {
  game_ptrs_.clear();
  seeds_.clear();
  for (const Pending& p : searched_) {
    game_ptrs_.push_back(live_[p.slot].game.get());
    seeds_.push_back(p.seed);
  }
  const SearchConfig& search = options_.config.search();
  // The live games are searched in place (moves applied and undone).
  search_.RunInPlace(game_ptrs_, seeds_,
                     search::VisitTemperature(search, parameter_version_),
                     &results_);
  counters_.simulations +=
      static_cast<int64_t>(search.simulations()) * searched_.size();
  for (size_t j = 0; j < searched_.size(); ++j) {
    const search::SearchResult& result = results_[j];
    Record(&live_[searched_[j].slot], search_.root_observation(j),
           result.action, result.legal_mask, result.root_value, result.policy,
           /*fast_move=*/false);
  }
}

void SelfPlay::FastMoves() {
  fast_observations_.resize(std::max(fast_observations_.size(), fast_.size()));
  fast_observation_ptrs_.clear();
  for (size_t j = 0; j < fast_.size(); ++j) {
    features::Observe(*live_[fast_[j].slot].game, options_.config.features(),
                      &fast_observations_[j]);
    fast_observation_ptrs_.push_back(&fast_observations_[j]);
  }
  observed_.InitialInference(fast_observation_ptrs_, &fast_inferences_);
  // The visit-count temperature (VisitTemperature) applies to the draw:
  // softmax(logits / T), by Gumbel-max on logits / T.
  const double temperature = std::max(
      1e-3,
      search::VisitTemperature(options_.config.search(), parameter_version_));
  for (size_t j = 0; j < fast_.size(); ++j) {
    Live& live = live_[fast_[j].slot];
    const search::Inference& inference = fast_inferences_[j];
    const uint8_t mask = live.game->LegalActionMask();
    // Gumbel-max: a draw from the masked prior.
    std::array<float, game::kNumActions> policy{};
    int best = -1;
    double best_score = 0, max_logit = -1e30, sum = 0;
    for (int a = 0; a < game::kNumActions; ++a) {
      if (!(mask & (1u << a))) continue;
      max_logit = std::max<double>(max_logit, inference.policy_logits[a]);
      const double gumbel =
          -std::log(-std::log(solvers::UniformFromSeed(fast_[j].seed, a)));
      const double score = inference.policy_logits[a] / temperature + gumbel;
      if (best < 0 || score > best_score) best = a, best_score = score;
    }
    for (int a = 0; a < game::kNumActions; ++a) {
      if (!(mask & (1u << a))) continue;
      policy[a] =
          static_cast<float>(std::exp(inference.policy_logits[a] - max_logit));
      sum += policy[a];
    }
    for (float& p : policy) p = static_cast<float>(p / sum);
    Record(&live, fast_observations_[j], static_cast<game::Action>(best), mask,
           inference.value, policy, /*fast_move=*/true);
  }
}

int32_t SelfPlay::SegmentStepsFor(const MuZeroConfig& config, int64_t max_bytes,
                                  int32_t max_positions) {
  // A step: the quantised occupancy map, the float vector, and about 48
  // bytes of scalars, policy and framing.
  const FeatureConfig& features = config.features();
  const int64_t step_bytes =
      int64_t{features.occupancy_time_bins()} * features.occupancy_byte_bins() +
      4 * features::VectorSize(features) + 48;
  const int64_t context = ContextSteps(config.training());
  return static_cast<int32_t>(std::clamp<int64_t>(
      max_bytes / std::max<int64_t>(1, step_bytes) - context, 16,
      std::max(16, max_positions)));
}

void SelfPlay::EmitSegment(Live* live, int32_t context) {
  agent::Trajectory& trajectory = live->trajectory;
  const int32_t positions = options_.max_segment_steps;
  agent::Trajectory segment;
  segment.steps.reserve(positions + context);
  for (int32_t i = 0; i < positions; ++i) {
    segment.steps.push_back(std::move(trajectory.steps[i]));
  }
  trajectory.steps.erase(trajectory.steps.begin(),
                         trajectory.steps.begin() + positions);
  segment.steps.insert(segment.steps.end(), trajectory.steps.begin(),
                       trajectory.steps.begin() + context);
  segment.parameter_version = trajectory.parameter_version;
  segment.episode_return = trajectory.episode_return;  // so far
  segment.normalised_return = NormalisedReturn(segment.episode_return);
  segment.continues = true;
  segment.context_steps = context;
  live->segmented_steps += positions;
  ++counters_.segments;
  if (options_.sink) options_.sink(*live->game, std::move(segment));
}

void SelfPlay::Record(Live* live, const features::Observation& observation,
                      game::Action action, uint8_t legal_mask, float root_value,
                      const std::array<float, game::kNumActions>& policy,
                      bool fast_move) {
  // Every step recorded so far has its final reward now: a segment and its
  // context can go.
  const int32_t positions = options_.max_segment_steps;
  const int32_t context = ContextSteps(options_.config.training());
  if (positions > 0 && static_cast<int64_t>(live->trajectory.steps.size()) >=
                           int64_t{positions} + context) {
    EmitSegment(live, context);
  }
  agent::TrajectoryStep step;
  step.observation = agent::Compact(observation);
  step.buffer = live->game->CurrentBuffer();
  step.action = static_cast<uint8_t>(action);
  step.legal_mask = legal_mask;
  step.root_value = root_value;
  step.policy = policy;
  // A forced move (one legal action) has nothing to learn for the policy.
  step.fast_move = fast_move || std::popcount(legal_mask) == 1;
  starts_.NoteFollowedMove(*live->game, action, &live->variation);
  const game::StepResult applied = live->game->ApplyAction(action);
  step.reward = static_cast<float>(reward_scale_ * applied.transition_reward());
  live->trajectory.episode_return += applied.transition_reward();
  if (applied.backed_up) ++counters_.drop_backups;
  live->trajectory.steps.push_back(std::move(step));
  ++counters_.moves;
  if (fast_move) ++counters_.fast_moves;
}

void SelfPlay::PlayGames(int64_t games) {
  const int64_t target = counters_.games + games;
  while (counters_.games < target) Step();
}

bool SelfPlay::SyncParameters(const PublishedParameters& parameters) {
  // -1: older than any published version.
  int64_t version = synced_ ? parameter_version_ : -1;
  if (!parameters.CopyIfNewer(network_, &version)) return false;
  parameter_version_ = version;
  synced_ = true;
  return true;
}

}  // namespace mmapzero::training
