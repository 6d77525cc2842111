// What one self-play actor has done so far: its games, moves, searches and
// the ways its games started and ended (common/training/self_play.h counts
// them). Kept apart from SelfPlay, which needs LibTorch, so that code
// without LibTorch can sum and report them.
#ifndef MMAPZERO_COMMON_AGENT_SELF_PLAY_COUNTERS_H_
#define MMAPZERO_COMMON_AGENT_SELF_PLAY_COUNTERS_H_

#include <array>
#include <cstdint>

namespace mmapzero::agent {

struct SelfPlayCounters {
  int64_t games = 0;  // complete games emitted
  int64_t moves = 0;  // ApplyAction calls (trajectory steps)
  int64_t simulations = 0;
  int64_t drop_backups = 0;
  int64_t forced_moves = 0;  // one legal action: no network call
  int64_t fast_moves = 0;    // from the prior alone (playout cap)
  int64_t best_starts = 0;   // games started on the best game's prefix
  int64_t followed_moves = 0;  // past a best start's window (no network)
  // Variations ended where they rejoined the best game
  // (search.best_start_rejoin_moves), and those that looked better there
  // and were played to their end.
  int64_t rejoined = 0;
  int64_t played_out = 0;
  // Rejoined variations that never differed from the best game: the
  // agent's decisions were the best game's own.
  int64_t unchanged = 0;
  int64_t segments = 0;  // pieces of games sent while they went on
  // Variations that beat the game they followed after a newer best had
  // replaced it, replayed on that best (their changes only), and those
  // that beat it there.
  int64_t rebased = 0;
  int64_t rebase_wins = 0;
  // The window's W now (search.best_start_stall_variations: it grows
  // while the best stands); 0 before the first variation.
  int64_t window = 0;
};

// The counts a muzero solve's result carries in its settings, under the
// names both the in-process solver and `mmapctl solve` on the cluster give
// them, so that a benchmark reads either the same way: how much the agent
// played and how its games used the best game.
struct ReportedCount {
  const char* name;
  int64_t value;
};
inline std::array<ReportedCount, 7> ReportedCounts(
    const SelfPlayCounters& counters) {
  return {{{"games", counters.games},
           {"moves", counters.moves},
           {"best_starts", counters.best_starts},
           {"followed_moves", counters.followed_moves},
           {"rejoined", counters.rejoined},
           {"unchanged", counters.unchanged},
           {"best_start_window", counters.window}}};
}

}  // namespace mmapzero::agent

#endif  // MMAPZERO_COMMON_AGENT_SELF_PLAY_COUNTERS_H_
