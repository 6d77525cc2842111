// What the in-process solver's actor threads found, read by its Solve
// thread (common/training/muzero_solver.cc): games counted up to a limit, the
// best complete game with a version that rises with each new best (what
// actors start their games from), the mean of the last few games' returns,
// and each actor's counters. Thread-safe. Without LibTorch, so that the
// clang build checks its locking.
#ifndef MMAPZERO_COMMON_AGENT_SELF_PLAY_RESULTS_H_
#define MMAPZERO_COMMON_AGENT_SELF_PLAY_RESULTS_H_

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/agent/self_play_counters.h"
#include "common/agent/trajectory.h"
#include "common/game/mmap_game.h"
#include "common/solvers/best_solution.h"
#include "proto/solution.pb.h"

namespace mmapzero::agent {

class SelfPlayResults {
 public:
  // Games beyond `game_limit` (0: none) are not counted, offered or kept;
  // recent() averages the last `recent_games`.
  SelfPlayResults(int64_t game_limit, int actors, int recent_games = 10);

  struct Counted {
    bool counted = false;   // within the limit
    bool new_best = false;  // the best self-play game so far
  };
  // From an actor's sink: counts and keeps one finished game; not counted
  // when it is beyond the limit (dropped).
  // A game that rejoined the best game (`trajectory.rejoined`) is not
  // complete: it counts, with its trajectory's return, but is no solution.
  Counted OnGame(const game::MMapGame& game, const Trajectory& trajectory)
      ABSL_LOCKS_EXCLUDED(mu_);
  // A complete game that is no self-play game of its own (a rebased
  // variation): kept when it is the best; true then.
  bool OfferSolution(const game::MMapGame& game) ABSL_LOCKS_EXCLUDED(mu_);
  // Actor `actor`'s counters now (0 <= actor < actors).
  void SetCounters(int actor, const SelfPlayCounters& counters)
      ABSL_LOCKS_EXCLUDED(mu_);

  bool LimitReached() const ABSL_LOCKS_EXCLUDED(mu_);
  int64_t games() const ABSL_LOCKS_EXCLUDED(mu_);
  // Mean normalised return of the last recent_games games (an infeasible
  // game counts 0); negative before the first.
  double recent() const ABSL_LOCKS_EXCLUDED(mu_);
  // The best self-play game's solution when it is newer than *version
  // (then updates it): what actors start games from.
  std::optional<Solution> BestIfNewer(int64_t* version) const
      ABSL_LOCKS_EXCLUDED(mu_);
  solvers::BestSolution best() const ABSL_LOCKS_EXCLUDED(mu_);
  // The actors' counters summed (window: the widest), with games as
  // counted here.
  SelfPlayCounters totals() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // Keeps a complete, feasible game when it beats the best; true then.
  bool KeepIfBest(const game::MMapGame& game)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int64_t game_limit_;
  const size_t recent_games_;
  mutable absl::Mutex mu_;
  int64_t games_ ABSL_GUARDED_BY(mu_) = 0;
  solvers::BestSolution best_ ABSL_GUARDED_BY(mu_);
  int64_t best_version_ ABSL_GUARDED_BY(mu_) = 0;  // + 1 per new best
  std::deque<double> recent_ ABSL_GUARDED_BY(mu_);
  std::vector<SelfPlayCounters> per_actor_ ABSL_GUARDED_BY(mu_);
};

}  // namespace mmapzero::agent

#endif  // MMAPZERO_COMMON_AGENT_SELF_PLAY_RESULTS_H_
