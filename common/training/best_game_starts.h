// Starts from the best game (search.best_start_fraction, Go-Explore) for
// one self-play actor (self_play.h): that fraction of new games replays a
// prefix of uniform random length of the best complete game the actor
// knows (its own best, or a better one offered to it) and is played by the
// agent from there. With search.best_start_window W > 0 such a game is a
// local variation of the best one: the agent makes w decisions after the
// prefix (w log-uniform in 1 .. W, drawn per game), then the game follows
// the best game's decisions, repaired by rule where one is no longer legal
// (FollowedAction), except where the actor lets the agent deviate. With
// search.best_start_stall_variations S > 0, W doubles after every S
// variations of one best without a new best (up to 256 W) and is W again
// once one comes (variable neighbourhood search).
//
// Rejoining (search.best_start_rejoin_moves R > 0): a variation that has
// played R consecutive moves identical to the best game's, past the last
// time step where the two differ, and would not beat it, ends there; its
// return is its own so far plus the best game's from there on.
// Rebasing: a variation that beat the game it followed after a newer best
// replaced that game is replayed on the newer best with only its own
// changes, so that improvements found at once in different places of the
// program add up instead of the later one being lost.
//
// A start keeps snapshots of its game every `every` moves, made when a
// game first starts past one; a new best shares the snapshots of the start
// it varied up to where the two games part, so a best costs a copy of its
// moves' outcomes, not a replay of the whole program, however often bests
// come.
//
// Thread-safety: one actor's thread.
#ifndef MMAPZERO_COMMON_TRAINING_BEST_GAME_STARTS_H_
#define MMAPZERO_COMMON_TRAINING_BEST_GAME_STARTS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "common/agent/self_play_counters.h"
#include "common/game/mmap_game.h"
#include "common/game/program.h"
#include "proto/muzero.pb.h"
#include "proto/solution.pb.h"

namespace mmapzero::training {

// A solution games may start from: every buffer's action, its game at
// every `every`-th depth (snapshots[k] at depth k * every) and, by depth,
// what the move played there did and the return before it
// (return_before[depth] is the whole game's).
struct StartSolution {
  double return_us = 0;
  std::vector<int8_t> action_of;  // by buffer id
  int32_t depth = 0;              // moves of the whole game
  int32_t every = 1;
  // Null until first needed; snapshots[0] is the pristine game.
  mutable std::vector<std::shared_ptr<const game::MMapGame>> snapshots;
  std::vector<game::ActionOutcome> outcome_at;
  std::vector<double> return_before;
};

// One game's variation of a start, and where it stands against it.
struct Variation {
  // The start it follows once the agent made `window` decisions; null:
  // the agent plays to the end.
  std::shared_ptr<const StartSolution> follow;
  int32_t window = 0;
  int32_t follow_from = -1;  // depth where it began to follow; -1: not yet
  // Consecutive moves equal to the best game's, the last time step where
  // the two games' allocations or copies differ, and whether the game is to
  // be played to its end (it looked better than the best where it
  // rejoined, or cannot be compared move by move after a Drop-backup).
  int32_t rejoin_run = 0;
  int32_t differs_until = -1;
  bool play_out = false;
};

// Past a start's window: the best game's action where it is legal; else
// the other fast-memory action (a Copy where the data is no longer
// resident, a NoCopy where it still is); else Drop; else the legal one.
game::Action FollowedAction(uint8_t mask, game::Action best);

class BestGameStarts {
 public:
  // `fresh` is a game at its start; `counters` (best_starts, window,
  // rejoined, unchanged, played_out, rebased, rebase_wins) is the actor's
  // and outlives this.
  BestGameStarts(std::shared_ptr<const game::Program> program,
                 SearchConfig search, const game::MMapGame& fresh,
                 agent::SelfPlayCounters* counters);

  // Adopts `solution` when its return beats the start's and it covers
  // every buffer and replays as a whole game; ignored otherwise.
  void Offer(const Solution& solution);
  // Adopts the complete, feasible game `best` when it beats the start.
  void Adopt(const game::MMapGame& best);

  // Whether the game of `seed` starts from the best (a start exists and
  // the best_start_fraction draw says so).
  bool StartsFromBest(uint64_t seed) const;
  // Sets `game` to a prefix of the start's game (from its nearest
  // snapshot) and draws the variation that follows it; `seed` is the
  // game's. Only after StartsFromBest(seed).
  Variation Begin(uint64_t seed, game::MMapGame* game);
  // Before `action` is applied to a game that follows a start: whether the
  // move repeats the start's move at that depth.
  void NoteFollowedMove(const game::MMapGame& game, game::Action action,
                        Variation* variation) const;
  // After a followed move: when the game has rejoined the start it follows
  // and would not beat it, the return of the start's rest (the game ends
  // there); nullopt otherwise.
  std::optional<double> Rejoin(const game::MMapGame& game,
                               Variation* variation);
  // A complete variation that beat the start it followed while a newer
  // best replaced that start, replayed on the newer one with its own
  // changes: the rebased game when that beats the newer best (and is
  // adopted), else null. Valid until the next call.
  const game::MMapGame* Rebase(const game::MMapGame& game,
                               const Variation& variation);

 private:
  // start's snapshot k (0 <= k < snapshots.size()), made from the nearest
  // earlier one by replaying start's actions when it is first needed.
  const game::MMapGame& Snapshot(const StartSolution& start, size_t k);

  const std::shared_ptr<const game::Program> program_;
  const SearchConfig search_;
  const game::MMapGame& fresh_;
  agent::SelfPlayCounters* const counters_;
  std::shared_ptr<const StartSolution> start_;
  int64_t variations_since_best_ = 0;  // begun since start_ was adopted
  game::MMapGame rebased_;             // Rebase's game
  std::vector<int8_t> rebased_actions_;
};

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_BEST_GAME_STARTS_H_
