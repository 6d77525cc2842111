#include "common/model/self_play.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/agent/target_scale.h"
#include "common/base/check.h"
#include "common/features/feature_extractor.h"
#include "common/search/temperature.h"
#include "common/solvers/search_budget.h"

namespace mmapzero::model {
namespace {

// Mixed into a move's seed for the playout-cap draw (search or fast move).
constexpr uint64_t kFastMoveSalt = 0xfa57;
// Best starts: snapshots of the best game at most this many, at least this
// many moves apart.
constexpr int32_t kSnapshots = 32;
constexpr int32_t kMinSnapshotSpacing = 16;
// search.best_start_stall_variations: the window grows to at most 2^this W.
constexpr int64_t kMaxWindowDoublings = 8;
// Mixed into a game's seed for the best-start draws.
constexpr uint64_t kBestStartSalt = 0xbe57;
constexpr uint64_t kPrefixSalt = 0x9f1c;
constexpr uint64_t kWindowSalt = 0x3d2b;
constexpr uint64_t kDeviationSalt = 0xde71;

// A uniform draw in (0, 1) from a hashed seed: a generator per move would
// cost more than the move (seeding a mt19937_64 fills 312 words).
double HashUniform(uint64_t seed, uint64_t salt) {
  return (static_cast<double>(solvers::MixSeed(seed, salt, 0) >> 11) + 0.5) *
         0x1.0p-53;
}

// Every tensor of the network's state (parameters, then buffers), in a
// fixed order.
std::vector<torch::Tensor> StateTensors(const MuZeroNetwork& network) {
  std::vector<torch::Tensor> tensors = network->parameters();
  for (const torch::Tensor& buffer : network->buffers()) {
    tensors.push_back(buffer);
  }
  return tensors;
}

// A segment's context: the steps after its positions that their targets
// read (K unroll steps and n-step values).
int32_t ContextSteps(const TrainingConfig& training) {
  return training.unroll_steps() + training.td_steps();
}

// Past a best start's window: the best game's action where it is legal;
// else the other fast-memory action (a Copy where the data is no longer
// resident, a NoCopy where it still is); else Drop; else the legal one.
game::Action FollowedAction(uint8_t mask, game::Action best) {
  auto legal = [mask](game::Action a) {
    return (mask & (1u << static_cast<int>(a))) != 0;
  };
  if (legal(best)) return best;
  if (best != game::Action::kDrop) {
    const game::Action other = best == game::Action::kCopy
                                   ? game::Action::kNoCopy
                                   : game::Action::kCopy;
    if (legal(other)) return other;
  }
  if (legal(game::Action::kDrop)) return game::Action::kDrop;
  return static_cast<game::Action>(std::countr_zero(mask));
}

}  // namespace

void PublishedParameters::Publish(const MuZeroNetwork& network,
                                  int64_t version) {
  Snapshot copy;
  {
    torch::NoGradGuard no_grad;
    for (const torch::Tensor& tensor : StateTensors(network)) {
      copy.tensors.push_back(tensor.detach().clone());
    }
  }
  copy.version = version;
  snapshot_.Update([&](Snapshot& snapshot) { snapshot = std::move(copy); });
}

bool PublishedParameters::CopyIfNewer(MuZeroNetwork& network,
                                      int64_t* version) const {
  return snapshot_.Read([&](const Snapshot& snapshot) {
    if (snapshot.version <= *version) return false;
    std::vector<torch::Tensor> targets = StateTensors(network);
    MMAPZERO_CHECK(targets.size() == snapshot.tensors.size(),
                   "published parameters are of another architecture");
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < targets.size(); ++i) {
      targets[i].copy_(snapshot.tensors[i]);
    }
    *version = snapshot.version;
    return true;
  });
}

int64_t PublishedParameters::version() const {
  return snapshot_.Read([](const Snapshot& snapshot) { return snapshot.version; });
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
              }),
      reward_scale_(agent::TargetScale(options_.config.training(), *program_)),
      fresh_(program_, options_.game_options),
      rebased_(fresh_) {
  search_.set_reward_scale(reward_scale_);
  if (options_.start.has_value()) OfferStart(*options_.start);
  live_.resize(options_.config.search().batch_games());
  for (Live& live : live_) StartGame(&live);
}

void SelfPlay::StartGame(Live* live) {
  live->trajectory = agent::Trajectory{};
  live->trajectory.parameter_version = parameter_version_;
  live->game_index = games_started_++;
  live->follow.reset();
  live->segmented_steps = 0;
  live->follow_from = -1;
  live->rejoin_run = 0;
  live->differs_until = -1;
  live->play_out = false;
  live->rejoined = false;
  const double fraction = options_.config.search().best_start_fraction();
  const uint64_t seed = solvers::MixSeed(options_.seed, live->game_index, 0);
  const bool best_start = start_ != nullptr && fraction > 0 &&
                          HashUniform(seed, kBestStartSalt) < fraction;
  // Copy-assigning a pristine game (or a snapshot) reuses the slot's memory.
  if (live->game == nullptr) {
    live->game = std::make_unique<game::MMapGame>(fresh_);
  } else if (!best_start) {
    *live->game = fresh_;
  }
  if (best_start) ReplayStartPrefix(live, seed);
}

void SelfPlay::ReplayStartPrefix(Live* live, uint64_t seed) {
  // A prefix of 0 .. depth - 1 moves: the agent makes at least one.
  const auto prefix = static_cast<int32_t>(
      HashUniform(seed, kPrefixSalt) * static_cast<double>(start_->depth));
  // The nearest snapshot at or before the prefix, then the moves to it.
  const size_t k = std::min(start_->snapshots.size() - 1,
                            static_cast<size_t>(prefix / start_->every));
  game::MMapGame& game = *live->game;
  game = Snapshot(*start_, k);
  while (!game.IsTerminal() && game.depth() < prefix) {
    game.ApplyAction(
        static_cast<game::Action>(start_->action_of[game.CurrentBuffer()]));
  }
  live->trajectory.episode_return = game.Return();
  ++counters_.best_starts;
  const SearchConfig& search = options_.config.search();
  int32_t window = search.best_start_window();
  if (window > 0 && search.best_start_stall_variations() > 0) {
    // Variable neighbourhood: longer windows while the best stands.
    const int64_t doublings = std::min<int64_t>(
        kMaxWindowDoublings,
        variations_since_best_ / search.best_start_stall_variations());
    window = static_cast<int32_t>(std::min<int64_t>(
        int64_t{window} << doublings, std::numeric_limits<int32_t>::max() / 2));
  }
  if (window > 0) {
    counters_.window = window;
    ++variations_since_best_;
    live->follow = start_;
    // Log-uniform in 1 .. window: mostly small variations, now and then a
    // long one that can leave a local optimum.
    live->window = std::clamp(
        static_cast<int32_t>(std::exp(HashUniform(seed, kWindowSalt) *
                                      std::log(window + 1.0))),
        1, window);
  }
}

void SelfPlay::OfferStart(const Solution& solution) {
  if (start_ != nullptr && solution.return_us() <= start_->return_us) return;
  const int32_t buffers = program_->num_buffers();
  std::vector<int8_t> action_of(buffers, -1);
  for (const BufferDecision& decision : solution.decisions()) {
    if (decision.buffer_id() < 0 || decision.buffer_id() >= buffers ||
        decision.action() < 0 || decision.action() >= game::kNumActions) {
      return;
    }
    action_of[decision.buffer_id()] = static_cast<int8_t>(decision.action());
  }
  // A solution that leaves a buffer undecided or does not replay as a
  // whole game without a Drop-backup is not adopted.
  game::MMapGame game = fresh_;
  while (!game.IsTerminal()) {
    const int action = action_of[game.CurrentBuffer()];
    if (action < 0 || !(game.LegalActionMask() & (1u << action))) return;
    if (game.ApplyAction(static_cast<game::Action>(action)).backed_up) return;
  }
  AdoptStart(game);
}

void SelfPlay::AdoptStart(const game::MMapGame& best) {
  if (!best.IsTerminal() || best.infeasible() ||
      (start_ != nullptr && best.Return() <= start_->return_us)) {
    return;
  }
  if (best.drop_backups() > 0) {
    // Its moves are not its decisions: replay the final ones (once).
    OfferStart(best.ToSolution());
    return;
  }
  const std::vector<game::Transition>& moves = best.trajectory();
  const auto depth = static_cast<int32_t>(moves.size());
  if (depth == 0) return;
  auto start = std::make_shared<StartSolution>();
  start->return_us = best.Return();
  start->depth = depth;
  start->action_of.assign(program_->num_buffers(), -1);
  start->outcome_at.reserve(depth);
  start->return_before.reserve(depth + 1);
  // The depth where it parts from the current start: snapshots up to it
  // are the current start's.
  int32_t parts_at = start_ == nullptr ? 0 : depth;
  double sum = 0;
  for (int32_t d = 0; d < depth; ++d) {
    const game::Transition& move = moves[d];
    start->action_of[move.buffer] = static_cast<int8_t>(move.action);
    start->outcome_at.push_back(best.PlayedOutcome(d));
    start->return_before.push_back(sum);
    sum += move.reward;
    if (parts_at == depth && start_->action_of[move.buffer] !=
                                 static_cast<int8_t>(move.action)) {
      parts_at = d;
    }
  }
  start->return_before.push_back(sum);
  start->every = std::max(kMinSnapshotSpacing,
                          program_->num_buffers() / kSnapshots + 1);
  start->snapshots.resize((depth - 1) / start->every + 1);
  if (start_ != nullptr) {  // the same program: the same spacing
    for (size_t k = 0; k < start->snapshots.size() &&
                       k < start_->snapshots.size() &&
                       static_cast<int64_t>(k) * start->every <= parts_at;
         ++k) {
      start->snapshots[k] = start_->snapshots[k];
    }
  }
  if (start->snapshots[0] == nullptr) {
    start->snapshots[0] = std::make_shared<const game::MMapGame>(fresh_);
  }
  start_ = std::move(start);
  variations_since_best_ = 0;
}

const game::MMapGame& SelfPlay::Snapshot(const StartSolution& start,
                                         size_t k) {
  if (start.snapshots[k] != nullptr) return *start.snapshots[k];
  size_t from = k;
  while (start.snapshots[from] == nullptr) --from;  // [0] is always there
  game::MMapGame game = *start.snapshots[from];
  for (size_t next = from + 1; next <= k; ++next) {
    const int64_t until = static_cast<int64_t>(next) * start.every;
    while (game.depth() < until) {
      game.ApplyAction(
          static_cast<game::Action>(start.action_of[game.CurrentBuffer()]));
    }
    start.snapshots[next] = std::make_shared<const game::MMapGame>(game);
  }
  return *start.snapshots[k];
}

double SelfPlay::NormalisedReturn(double return_us) const {
  const double max_return = program_->max_return_us();
  return max_return > 0 ? return_us / max_return : 0.0;
}

void SelfPlay::NoteFollowedMove(Live* live, game::Action action) {
  if (options_.config.search().best_start_rejoin_moves() <= 0 ||
      live->follow == nullptr || live->play_out) {
    return;
  }
  const game::MMapGame& game = *live->game;
  const StartSolution& best = *live->follow;
  const int32_t depth = game.depth();
  if (game.drop_backups() > 0 || depth >= best.depth) {
    // Depths no longer line up with the best game's moves.
    live->play_out = true;
    return;
  }
  const game::ActionOutcome& mine = game.Outcome(action);
  const game::ActionOutcome& theirs = best.outcome_at[depth];
  // Without Drop-backups a depth is the same buffer in both games.
  const bool same =
      static_cast<int>(action) == best.action_of[game.CurrentBuffer()] &&
      mine.offset == theirs.offset &&
      mine.interval_start == theirs.interval_start &&
      mine.interval_end == theirs.interval_end &&
      mine.copy.first == theirs.copy.first &&
      mine.copy.last == theirs.copy.last &&
      std::abs(mine.reward - theirs.reward) <=
          1e-9 * (1.0 + std::abs(theirs.reward));
  if (same) {
    ++live->rejoin_run;
    return;
  }
  live->rejoin_run = 0;
  live->differs_until = std::max({live->differs_until, mine.interval_end,
                                  mine.copy.last, theirs.interval_end,
                                  theirs.copy.last, game.CurrentTime()});
}

bool SelfPlay::MaybeRejoin(Live* live) {
  const int32_t needed =
      options_.config.search().best_start_rejoin_moves();
  game::MMapGame& game = *live->game;
  if (needed <= 0 || live->follow == nullptr || live->play_out ||
      live->rejoin_run < needed || game.IsTerminal() ||
      game.drop_backups() > 0 || game.CurrentTime() <= live->differs_until) {
    return false;
  }
  const StartSolution& best = *live->follow;
  const double rest = best.return_us - best.return_before[game.depth()];
  const double estimate = game.Return() + rest;
  if (estimate > best.return_us + 1e-9 * (1.0 + std::abs(best.return_us))) {
    // It may be a new best: only a complete game can tell (and be one).
    live->play_out = true;
    ++counters_.played_out;
    return false;
  }
  agent::Trajectory& trajectory = live->trajectory;
  trajectory.steps.back().reward += static_cast<float>(reward_scale_ * rest);
  trajectory.episode_return += rest;
  trajectory.rejoined = true;
  live->rejoined = true;
  ++counters_.rejoined;
  if (live->differs_until < 0) ++counters_.unchanged;
  return true;
}

void SelfPlay::RebaseOntoStart(const Live& live) {
  const game::MMapGame& game = *live.game;
  if (live.follow == nullptr || start_ == nullptr || live.follow == start_ ||
      game.Return() <= live.follow->return_us ||
      game.Return() >= start_->return_us) {
    return;
  }
  const StartSolution& from = *live.follow;
  const StartSolution& onto = *start_;
  rebased_actions_ = onto.action_of;
  // The variation's decisions that differ from the game it followed (a
  // buffer decided again after a Drop-backup: the last decision).
  int32_t first = onto.depth;
  const std::vector<game::Transition>& path = game.trajectory();
  for (size_t i = 0; i < path.size(); ++i) {
    const int action = static_cast<int>(path[i].action);
    if (action == from.action_of[path[i].buffer]) continue;
    rebased_actions_[path[i].buffer] = static_cast<int8_t>(action);
    first = std::min(first, static_cast<int32_t>(i));
  }
  if (game.drop_backups() > 0) first = 0;  // depths do not line up
  // Up to `first` the newer best's own moves: start from its snapshot.
  rebased_ = Snapshot(onto, std::min(onto.snapshots.size() - 1,
                                     static_cast<size_t>(first / onto.every)));
  while (!rebased_.IsTerminal()) {
    rebased_.ApplyAction(FollowedAction(
        rebased_.LegalActionMask(),
        static_cast<game::Action>(rebased_actions_[rebased_.CurrentBuffer()])));
  }
  ++counters_.rebased;
  if (rebased_.infeasible() || rebased_.Return() <= onto.return_us) return;
  ++counters_.rebase_wins;
  best_return_us_ = rebased_.Return();
  AdoptStart(rebased_);
  if (options_.solution_sink) options_.solution_sink(rebased_);
}

void SelfPlay::FinishGame(Live* live) {
  const game::MMapGame& game = *live->game;
  agent::Trajectory& trajectory = live->trajectory;
  ++counters_.games;
  // A rejoined game's return is its trajectory's (the estimate); it has no
  // solution. A game that ended infeasible (Drop-backup off) has none
  // either.
  trajectory.normalised_return = live->rejoined
                                     ? NormalisedReturn(trajectory.episode_return)
                                     : game.NormalisedReturn();
  trajectory.drop_backups = game.drop_backups();  // 0 when rejoined
  if (!live->rejoined && !game.infeasible()) {
    if (!best_return_us_.has_value() || game.Return() > *best_return_us_) {
      best_return_us_ = game.Return();
      AdoptStart(game);
    }
    RebaseOntoStart(*live);
  }
  if (options_.sink) options_.sink(game, std::move(trajectory));
  StartGame(live);
}

bool SelfPlay::Deviates(const Live& live) const {
  const double rate = options_.config.search().best_start_deviation_rate();
  const int32_t horizon =
      options_.config.search().best_start_deviation_horizon();
  if (horizon > 0 && live.game->depth() - live.follow_from >= horizon) {
    return false;
  }
  return rate > 0 &&
         HashUniform(solvers::MixSeed(options_.seed, live.game_index,
                                      static_cast<uint64_t>(live.game->depth())),
                     kDeviationSalt) < rate;
}

void SelfPlay::PlayUnrecordedMoves(Live* live) {
  agent::Trajectory& trajectory = live->trajectory;
  game::MMapGame& game = *live->game;
  const bool following =
      live->follow != nullptr &&
      live->segmented_steps + static_cast<int64_t>(trajectory.steps.size()) >=
          live->window;
  if (following && live->follow_from < 0) live->follow_from = game.depth();
  while (!trajectory.steps.empty() && !game.IsTerminal()) {
    const uint8_t mask = game.LegalActionMask();
    game::Action action;
    if (std::popcount(mask) == 1) {
      action = static_cast<game::Action>(std::countr_zero(mask));
      ++counters_.forced_moves;
    } else if (following && !Deviates(*live)) {
      action = FollowedAction(
          mask, static_cast<game::Action>(
                    live->follow->action_of[game.CurrentBuffer()]));
      ++counters_.followed_moves;
    } else {
      break;  // the agent decides
    }
    NoteFollowedMove(live, action);
    const game::StepResult applied = game.ApplyAction(action);
    // Folded into the transition INTO the next decision (see the header).
    trajectory.steps.back().reward +=
        static_cast<float>(reward_scale_ * applied.transition_reward());
    trajectory.episode_return += applied.transition_reward();
    if (applied.backed_up) ++counters_.drop_backups;
    ++counters_.moves;
    if (following && MaybeRejoin(live)) return;
  }
}

void SelfPlay::Step() {
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
      fast = HashUniform(seed, kFastMoveSalt) < search.fast_move_fraction();
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
      1e-3, search::VisitTemperature(options_.config.search(),
                                     parameter_version_));
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
      const double gumbel = -std::log(-std::log(HashUniform(fast_[j].seed, a)));
      const double score = inference.policy_logits[a] / temperature + gumbel;
      if (best < 0 || score > best_score) best = a, best_score = score;
    }
    for (int a = 0; a < game::kNumActions; ++a) {
      if (!(mask & (1u << a))) continue;
      policy[a] = static_cast<float>(
          std::exp(inference.policy_logits[a] - max_logit));
      sum += policy[a];
    }
    for (float& p : policy) p = static_cast<float>(p / sum);
    Record(&live, fast_observations_[j], static_cast<game::Action>(best), mask,
           inference.value, policy, /*fast_move=*/true);
  }
}

int32_t SelfPlay::SegmentStepsFor(const MuZeroConfig& config,
                                  int64_t max_bytes, int32_t max_positions) {
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
                      game::Action action, uint8_t legal_mask,
                      float root_value,
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
  NoteFollowedMove(live, action);
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
  return parameters.CopyIfNewer(network_, &parameter_version_);
}

}  // namespace mmapzero::model
