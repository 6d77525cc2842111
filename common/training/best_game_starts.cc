#include "common/training/best_game_starts.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <utility>

#include "common/solvers/search_budget.h"

namespace mmapzero::training {
namespace {

// Snapshots of the best game at most this many, at least this many moves
// apart.
constexpr int32_t kSnapshots = 32;
constexpr int32_t kMinSnapshotSpacing = 16;
// search.best_start_stall_variations: the window grows to at most 2^this W.
constexpr int64_t kMaxWindowDoublings = 8;
// Mixed into a game's seed for the best-start draws.
constexpr uint64_t kBestStartSalt = 0xbe57;
constexpr uint64_t kPrefixSalt = 0x9f1c;
constexpr uint64_t kWindowSalt = 0x3d2b;

}  // namespace

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

BestGameStarts::BestGameStarts(std::shared_ptr<const game::Program> program,
                               SearchConfig search, const game::MMapGame& fresh,
                               agent::SelfPlayCounters* counters)
    : program_(std::move(program)),
      search_(std::move(search)),
      fresh_(fresh),
      counters_(counters),
      rebased_(fresh) {}

bool BestGameStarts::StartsFromBest(uint64_t seed) const {
  const double fraction = search_.best_start_fraction();
  return start_ != nullptr && fraction > 0 &&
         solvers::UniformFromSeed(seed, kBestStartSalt) < fraction;
}

Variation BestGameStarts::Begin(uint64_t seed, game::MMapGame* game) {
  // A prefix of 0 .. depth - 1 moves: the agent makes at least one.
  const auto prefix =
      static_cast<int32_t>(solvers::UniformFromSeed(seed, kPrefixSalt) *
                           static_cast<double>(start_->depth));
  // The nearest snapshot at or before the prefix, then the moves to it.
  const size_t k = std::min(start_->snapshots.size() - 1,
                            static_cast<size_t>(prefix / start_->every));
  *game = Snapshot(*start_, k);
  while (!game->IsTerminal() && game->depth() < prefix) {
    game->ApplyAction(
        static_cast<game::Action>(start_->action_of[game->CurrentBuffer()]));
  }
  ++counters_->best_starts;
  Variation variation;
  int32_t window = search_.best_start_window();
  if (window > 0 && search_.best_start_stall_variations() > 0) {
    // Variable neighbourhood: longer windows while the best stands.
    const int64_t doublings = std::min<int64_t>(
        kMaxWindowDoublings,
        variations_since_best_ / search_.best_start_stall_variations());
    window = static_cast<int32_t>(std::min<int64_t>(
        int64_t{window} << doublings, std::numeric_limits<int32_t>::max() / 2));
  }
  if (window > 0) {
    counters_->window = window;
    ++variations_since_best_;
    variation.follow = start_;
    // Log-uniform in 1 .. window: mostly small variations, now and then a
    // long one that can leave a local optimum.
    variation.window =
        std::clamp(static_cast<int32_t>(
                       std::exp(solvers::UniformFromSeed(seed, kWindowSalt) *
                                std::log(window + 1.0))),
                   1, window);
  }
  return variation;
}

void BestGameStarts::Offer(const Solution& solution) {
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
  Adopt(game);
}

void BestGameStarts::Adopt(const game::MMapGame& best) {
  if (!best.IsTerminal() || best.infeasible() ||
      (start_ != nullptr && best.Return() <= start_->return_us)) {
    return;
  }
  if (best.drop_backups() > 0) {
    // Its moves are not its decisions: replay the final ones (once).
    Offer(best.ToSolution());
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
    if (parts_at == depth &&
        start_->action_of[move.buffer] != static_cast<int8_t>(move.action)) {
      parts_at = d;
    }
  }
  start->return_before.push_back(sum);
  start->every =
      std::max(kMinSnapshotSpacing, program_->num_buffers() / kSnapshots + 1);
  start->snapshots.resize((depth - 1) / start->every + 1);
  if (start_ != nullptr) {  // the same program: the same spacing
    for (size_t k = 0;
         k < start->snapshots.size() && k < start_->snapshots.size() &&
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

const game::MMapGame& BestGameStarts::Snapshot(const StartSolution& start,
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

void BestGameStarts::NoteFollowedMove(const game::MMapGame& game,
                                      game::Action action,
                                      Variation* variation) const {
  if (search_.best_start_rejoin_moves() <= 0 || variation->follow == nullptr ||
      variation->play_out) {
    return;
  }
  const StartSolution& best = *variation->follow;
  const int32_t depth = game.depth();
  if (game.drop_backups() > 0 || depth >= best.depth) {
    // Depths no longer line up with the best game's moves.
    variation->play_out = true;
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
    ++variation->rejoin_run;
    return;
  }
  variation->rejoin_run = 0;
  variation->differs_until =
      std::max({variation->differs_until, mine.interval_end, mine.copy.last,
                theirs.interval_end, theirs.copy.last, game.CurrentTime()});
}

std::optional<double> BestGameStarts::Rejoin(const game::MMapGame& game,
                                             Variation* variation) {
  const int32_t needed = search_.best_start_rejoin_moves();
  if (needed <= 0 || variation->follow == nullptr || variation->play_out ||
      variation->rejoin_run < needed || game.IsTerminal() ||
      game.drop_backups() > 0 ||
      game.CurrentTime() <= variation->differs_until) {
    return std::nullopt;
  }
  const StartSolution& best = *variation->follow;
  const double rest = best.return_us - best.return_before[game.depth()];
  const double estimate = game.Return() + rest;
  if (estimate > best.return_us + 1e-9 * (1.0 + std::abs(best.return_us))) {
    // It may be a new best: only a complete game can tell (and be one).
    variation->play_out = true;
    ++counters_->played_out;
    return std::nullopt;
  }
  ++counters_->rejoined;
  if (variation->differs_until < 0) ++counters_->unchanged;
  return rest;
}

const game::MMapGame* BestGameStarts::Rebase(const game::MMapGame& game,
                                             const Variation& variation) {
  if (variation.follow == nullptr || start_ == nullptr ||
      variation.follow == start_ ||
      game.Return() <= variation.follow->return_us ||
      game.Return() >= start_->return_us) {
    return nullptr;
  }
  const StartSolution& from = *variation.follow;
  const std::shared_ptr<const StartSolution> onto = start_;
  rebased_actions_ = onto->action_of;
  // The variation's decisions that differ from the game it followed (a
  // buffer decided again after a Drop-backup: the last decision).
  int32_t first = onto->depth;
  const std::vector<game::Transition>& path = game.trajectory();
  for (size_t i = 0; i < path.size(); ++i) {
    const int action = static_cast<int>(path[i].action);
    if (action == from.action_of[path[i].buffer]) continue;
    rebased_actions_[path[i].buffer] = static_cast<int8_t>(action);
    first = std::min(first, static_cast<int32_t>(i));
  }
  if (game.drop_backups() > 0) first = 0;  // depths do not line up
  // Up to `first` the newer best's own moves: start from its snapshot.
  rebased_ =
      Snapshot(*onto, std::min(onto->snapshots.size() - 1,
                               static_cast<size_t>(first / onto->every)));
  while (!rebased_.IsTerminal()) {
    rebased_.ApplyAction(FollowedAction(
        rebased_.LegalActionMask(),
        static_cast<game::Action>(rebased_actions_[rebased_.CurrentBuffer()])));
  }
  ++counters_->rebased;
  if (rebased_.infeasible() || rebased_.Return() <= onto->return_us) {
    return nullptr;
  }
  ++counters_->rebase_wins;
  Adopt(rebased_);
  return &rebased_;
}

}  // namespace mmapzero::training
