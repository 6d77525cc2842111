// A network's own play: one game played greedily on the network's policy
// (the most likely legal action at every decision), with no search, no
// heuristic seed and no local search. It is what a trained network alone
// knows about a program, the zero-shot answer of a pretrained agent, and
// what AnyProgramTest plays to show one network plays any program.
// PlaySearched adds a few simulations per decision: the cpu preset's
// one-step look-ahead (a Gumbel root over the real game, each considered
// action tried once and its child valued by the network), still one game,
// no seed and no local search.
//
// Thread-safety: one thread per evaluator (NetworkEvaluator's contract).
#ifndef MMAPZERO_COMMON_TRAINING_POLICY_PLAY_H_
#define MMAPZERO_COMMON_TRAINING_POLICY_PLAY_H_

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/game/mmap_game.h"
#include "common/game/program.h"
#include "common/model/network_evaluator.h"
#include "proto/muzero.pb.h"

namespace mmapzero::training {

struct PolicyGame {
  std::unique_ptr<game::MMapGame> game;  // complete
  // The first observation's hardware section (feature_extractor.h), what
  // the network was told of the profile.
  std::vector<float> hardware;
  int64_t decisions = 0;  // moves played, Drop-backups' included
};

// The most likely action of `policy_logits` (Copy, NoCopy, Drop) among
// those `legal_mask` allows (bit a: action a); -1 when none is.
int GreedyLegalAction(const std::array<float, 3>& policy_logits,
                      uint8_t legal_mask);

// Plays `program` to its end. `features` must be the configuration the
// network was built for (its ObservationShape).
PolicyGame PlayPolicy(const std::shared_ptr<const game::Program>& program,
                      const FeatureConfig& features,
                      model::NetworkEvaluator& evaluator);

// Plays `games` (>= 1) games of `program` in lockstep, one network call a
// decision for all of them: with `first_greedy` the first greedily (as
// PlayPolicy), the others drawing each decision from the policy's softmax
// over the legal actions at `temperature` (> 0), seeded by `seed`. Returns
// them in that order. A small beam of the network's own play: still no
// search, no seed, no local search; the caller keeps the best.
std::vector<PolicyGame> PlaySampled(
    const std::shared_ptr<const game::Program>& program,
    const FeatureConfig& features, model::NetworkEvaluator& evaluator,
    int games, bool first_greedy, double temperature, uint64_t seed);

// Plays `program` to its end with `simulations` (>= 1) simulations of a
// GUMBEL_REAL_GAME search per decision (config.search otherwise, no root
// noise; rewards scaled as config.training trains them), acting on the
// search's choice; decision i searches with seed + i.
PolicyGame PlaySearched(const std::shared_ptr<const game::Program>& program,
                        const MuZeroConfig& config, int simulations,
                        uint64_t seed, model::NetworkEvaluator& evaluator);

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_POLICY_PLAY_H_
