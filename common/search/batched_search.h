// MCTS over many games at once (MiniZero's ActorGroup, lc0's batched
// backend): each simulation round selects one leaf in every game's tree,
// evaluates all leaves in ONE Evaluator call, then expands and backs up.
// Per round: LEARNED_MODEL / GUMBEL make one RecurrentInference call;
// REAL_GAME makes one InitialInference call on the leaves' observations
// (skipped when every leaf is terminal). The roots cost one
// InitialInference call for all games.
//
// Modes (SearchConfig.mode):
//  - LEARNED_MODEL (the paper's): dynamics network below the root; the true
//    legal mask at the root only, all three actions below (as MuZero).
//    Illegal root actions get no child: no prior, no visits.
//  - REAL_GAME (the paper's ablation): the engine's branching below the
//    root; each game's working copy is advanced along the path and undone;
//    rewards and legal masks are the game's, terminal leaves are worth 0.
//  - POLICY_ONLY: one InitialInference, act on the masked prior.
//  - GUMBEL: Gumbel MuZero's root (gumbel_root.h) over the learned model.
//  - GUMBEL_REAL_GAME: Gumbel MuZero's root over the engine's branching
//    (REAL_GAME below the root): with a budget of a few simulations it
//    tries each considered action on the real game once and values its
//    child with the network, a cheap and exact one-step policy improvement.
// Dirichlet noise (root_dirichlet_alpha / root_exploration_fraction) is
// mixed into the root priors in LEARNED_MODEL and REAL_GAME.
//
// Roots come either as games (Run) or as observations with their legal
// masks (RunFromObservations, for MuZero Reanalyze: the replay keeps no
// game states). Both go through the same root evaluation and simulations,
// so a game and its observation with its legal mask give the same result
// for the same seed.
//
// Determinism: each game's search draws from its own generator seeded by
// its seed, and nothing a game computes depends on the other games, so a
// game searched alone or in a batch gives the same result (given an
// evaluator whose answer for an input does not depend on the batch).
//
// Not thread-safe; one BatchedSearch per actor thread. Buffers are kept
// between Run calls.
#ifndef MMAPZERO_COMMON_SEARCH_BATCHED_SEARCH_H_
#define MMAPZERO_COMMON_SEARCH_BATCHED_SEARCH_H_

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "common/features/observation.h"
#include "common/game/action.h"
#include "common/game/mmap_game.h"
#include "common/search/evaluator.h"
#include "common/search/gumbel_root.h"
#include "common/search/observation_source.h"
#include "common/search/search_random.h"
#include "common/search/search_tree.h"
#include "proto/muzero.pb.h"

namespace mmapzero::search {

struct SearchResult {
  game::Action action = game::Action::kDrop;
  std::array<int32_t, game::kNumActions> visits{};  // root children's visits
  // Normalised visits; the masked prior when no simulation ran; the
  // completed-Q improved policy in GUMBEL mode. Sums to 1 over legal actions.
  std::array<float, game::kNumActions> policy{};
  float root_value = 0;     // search value: mean backed-up value at the root
  float network_value = 0;  // the network's value of the root
  uint8_t legal_mask = 0;
};

class BatchedSearch {
 public:
  // `evaluator` is not owned and must outlive this object.
  BatchedSearch(const SearchConfig& config, Evaluator* evaluator,
                ObservationSource observe);

  // Searches the current state of every game (none may be terminal) with
  // seeds[i] for game i; the actions are drawn from the visit counts at
  // `temperature` (VisitTemperature(config, learner_step)).
  void Run(absl::Span<const game::MMapGame* const> games,
           absl::Span<const uint64_t> seeds, double temperature,
           std::vector<SearchResult>* results);

  // As Run, but REAL_GAME / GUMBEL_REAL_GAME search each game in place: its
  // moves are applied and undone on the caller's game (left as it was)
  // instead of on a copy, which on a 3,000-buffer program saves a copy of
  // the whole game state per search. Same results as Run.
  void RunInPlace(absl::Span<game::MMapGame* const> games,
                  absl::Span<const uint64_t> seeds, double temperature,
                  std::vector<SearchResult>* results);

  // As Run, from observations[i] with legal actions legal_masks[i] (bit a:
  // action a legal) as root i instead of a game. Every mode but REAL_GAME,
  // which needs a game to step: InvalidArgument there, and for a mask with
  // no legal action or a bit beyond the three actions. One mask and one
  // seed per observation (CHECKed).
  absl::Status RunFromObservations(
      absl::Span<const features::Observation* const> observations,
      absl::Span<const uint8_t> legal_masks, absl::Span<const uint64_t> seeds,
      double temperature, std::vector<SearchResult>* results);

  const SearchConfig& config() const { return config_; }

  // Real-game rewards (REAL_GAME, GUMBEL_REAL_GAME) are multiplied by
  // `scale` before they are backed up, so that they are in the units the
  // network's values are trained in (TrainingConfig.target_scaling).
  void set_reward_scale(double scale) { reward_scale_ = scale; }

  // Root i's observation of the last Run (valid until the next Run).
  const features::Observation& root_observation(int i) const {
    return *root_observation_ptrs_[i];
  }

 private:
  // One game's search state, reused across Run calls.
  struct Slot {
    SearchTree tree;
    SearchRng rng;
    GumbelRoot gumbel;
    std::unique_ptr<game::MMapGame> work;  // REAL_GAME working copy
    game::MMapGame* game = nullptr;  // what the search steps: work or in place
    std::vector<int32_t> path;
    std::array<float, game::kNumActions> root_logits{};
    uint8_t root_mask = 0;
    float network_value = 0;
  };
  // A leaf gathered for this round's evaluator call.
  struct Leaf {
    int32_t slot;
    int32_t node;
    uint8_t mask;  // REAL_GAME: the leaf's legal actions
  };

  // The search proper, from root_observation_ptrs_ and root_masks_;
  // `games` (REAL_GAME's roots) is empty in the other modes.
  void Search(absl::Span<const game::MMapGame* const> games,
              absl::Span<const uint64_t> seeds, double temperature,
              std::vector<SearchResult>* results);
  // Observes the roots into root_observation_ptrs_ / root_masks_.
  void ObserveRoots(absl::Span<const game::MMapGame* const> games);
  void EvaluateRoots(int32_t num_games);
  void AddRootNoise(Slot* slot);
  void SimulateLearned(int32_t round, int32_t num_games);
  void SimulateRealGame(int32_t round, int32_t num_games);
  // The engine's branching below the root (REAL_GAME, GUMBEL_REAL_GAME).
  bool real_game() const;
  // A Gumbel root (GUMBEL, GUMBEL_REAL_GAME).
  bool gumbel() const;
  // Descends from the root of `slot` by PUCT (the Gumbel root on `round`
  // in GUMBEL mode), filling slot->path; returns the last node.
  int32_t SelectLearned(Slot* slot, int32_t round);
  void Finish(Slot* slot, double temperature, SearchResult* result);

  SearchConfig config_;
  PuctParams puct_;
  Evaluator* evaluator_;
  ObservationSource observe_;
  double reward_scale_ = 1.0;
  // RunInPlace's games (stepped in place), else empty: Run copies.
  absl::Span<game::MMapGame* const> in_place_;

  std::vector<Slot> slots_;
  std::vector<const game::MMapGame*> const_games_;  // RunInPlace's, as const
  std::vector<const features::Observation*> root_observation_ptrs_;
  std::vector<uint8_t> root_masks_;
  std::vector<Leaf> leaves_;
  std::vector<features::Observation> observations_;
  std::vector<const features::Observation*> observation_ptrs_;
  std::vector<const std::vector<float>*> hidden_ptrs_;
  std::vector<int> actions_;
  std::vector<Inference> inferences_;
};

}  // namespace mmapzero::search

#endif  // MMAPZERO_COMMON_SEARCH_BATCHED_SEARCH_H_
