#include "common/agent/self_play_results.h"

#include <algorithm>

namespace mmapzero::agent {

SelfPlayResults::SelfPlayResults(int64_t game_limit, int actors,
                                 int recent_games)
    : game_limit_(game_limit),
      recent_games_(static_cast<size_t>(std::max(1, recent_games))),
      per_actor_(static_cast<size_t>(std::max(0, actors))) {}

SelfPlayResults::Counted SelfPlayResults::OnGame(
    const game::MMapGame& game, const Trajectory& trajectory) {
  absl::MutexLock lock(&mu_);
  if (game_limit_ > 0 && games_ >= game_limit_) return {};
  ++games_;
  const bool new_best = !trajectory.rejoined && KeepIfBest(game);
  recent_.push_back(game.infeasible() ? 0.0 : trajectory.normalised_return);
  if (recent_.size() > recent_games_) recent_.pop_front();
  return {.counted = true, .new_best = new_best};
}

bool SelfPlayResults::OfferSolution(const game::MMapGame& game) {
  absl::MutexLock lock(&mu_);
  return KeepIfBest(game);
}

void SelfPlayResults::SetCounters(int actor,
                                  const SelfPlayCounters& counters) {
  absl::MutexLock lock(&mu_);
  per_actor_.at(static_cast<size_t>(actor)) = counters;
}

bool SelfPlayResults::LimitReached() const {
  absl::MutexLock lock(&mu_);
  return game_limit_ > 0 && games_ >= game_limit_;
}

int64_t SelfPlayResults::games() const {
  absl::MutexLock lock(&mu_);
  return games_;
}

double SelfPlayResults::recent() const {
  absl::MutexLock lock(&mu_);
  if (recent_.empty()) return -1;
  double sum = 0;
  for (const double r : recent_) sum += r;
  return sum / static_cast<double>(recent_.size());
}

std::optional<Solution> SelfPlayResults::BestIfNewer(int64_t* version) const {
  absl::MutexLock lock(&mu_);
  if (best_version_ == *version || !best_.has_solution()) return {};
  *version = best_version_;
  return best_.solution();
}

solvers::BestSolution SelfPlayResults::best() const {
  absl::MutexLock lock(&mu_);
  return best_;
}

SelfPlayCounters SelfPlayResults::totals() const {
  absl::MutexLock lock(&mu_);
  SelfPlayCounters total;
  for (const SelfPlayCounters& c : per_actor_) {
    total.moves += c.moves;
    total.simulations += c.simulations;
    total.drop_backups += c.drop_backups;
    total.forced_moves += c.forced_moves;
    total.fast_moves += c.fast_moves;
    total.best_starts += c.best_starts;
    total.followed_moves += c.followed_moves;
    total.rejoined += c.rejoined;
    total.unchanged += c.unchanged;
    total.played_out += c.played_out;
    total.rebased += c.rebased;
    total.rebase_wins += c.rebase_wins;
    total.window = std::max(total.window, c.window);
  }
  total.games = games_;
  return total;
}

bool SelfPlayResults::KeepIfBest(const game::MMapGame& game) {
  if (game.infeasible() || !best_.Improves(game.Return())) return false;
  best_.Offer(game);
  ++best_version_;
  return true;
}

}  // namespace mmapzero::agent
