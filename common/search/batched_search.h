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

 private:
  // One game's search state, reused across Run calls.
  struct Slot {
    SearchTree tree;
    SearchRng rng;
    GumbelRoot gumbel;
    std::unique_ptr<game::MMapGame> work;  // REAL_GAME working copy
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
  void EvaluateRoots(int32_t num_games);
  void AddRootNoise(Slot* slot);
  void SimulateLearned(int32_t round, int32_t num_games);
  void SimulateRealGame(int32_t num_games);
  // Descends from the root of `slot` by PUCT (the Gumbel root on `round`
  // in GUMBEL mode), filling slot->path; returns the last node.
  int32_t SelectLearned(Slot* slot, int32_t round);
  void Finish(Slot* slot, double temperature, SearchResult* result);

  SearchConfig config_;
  PuctParams puct_;
  Evaluator* evaluator_;
  ObservationSource observe_;

  std::vector<Slot> slots_;
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
