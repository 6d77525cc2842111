// Gumbel MuZero's root (Danihelka et al. 2022, "Policy improvement by
// planning with Gumbel"), for small simulation budgets: Gumbel-top-k
// sampling of m considered actions, sequential halving of the budget among
// them, and the completed-Q improved policy as the policy target. Below the
// root, search stays PUCT (batched_search.h).
//
// sigma(q) = (c_visit + max_b N(b)) * c_scale * q, with q the completed Q
// values min-max rescaled to [0, 1] at the root; c_visit = 50 and
// c_scale = 1.0 are the paper's defaults (mctx's Atari default c_scale is
// 0.1). Completed Q: visited actions keep reward + discount * value,
// unvisited ones take the mixed value estimate (the paper's eq. 33).
// The visit schedule is mctx's get_sequence_of_considered_visits.
#ifndef MMAPZERO_COMMON_SEARCH_GUMBEL_ROOT_H_
#define MMAPZERO_COMMON_SEARCH_GUMBEL_ROOT_H_

#include <array>
#include <cstdint>
#include <vector>

#include "common/game/action.h"
#include "common/search/search_random.h"
#include "common/search/search_tree.h"

namespace mmapzero::search {

inline constexpr double kGumbelCVisit = 50.0;
inline constexpr double kGumbelCScale = 1.0;

// For each simulation index, the visit count the root action chosen then
// must have (mctx). Deterministic in (considered, simulations).
std::vector<int32_t> ConsideredVisitSequence(int32_t considered,
                                             int32_t simulations);

class GumbelRoot {
 public:
  using Values = std::array<double, game::kNumActions>;

  // Draws the Gumbel noise and chooses the considered actions: the top
  // min(considered, legal) by g(a) + logits(a) among legal actions.
  void Begin(const std::array<float, game::kNumActions>& logits, uint8_t mask,
             int32_t considered, int32_t simulations, double network_value,
             SearchRng* rng);

  // The root action for simulation `index` (0-based): among considered
  // actions whose visits equal the schedule's, the argmax of
  // g + logits + sigma(completed Q).
  int SelectAction(const SearchTree& tree, int32_t index,
                   double discount) const;

  // After the last simulation: the action with the best score among the
  // most-visited considered actions (the halving's winner).
  int FinalAction(const SearchTree& tree, double discount) const;

  // softmax(logits + sigma(completed Q)) over the legal actions.
  Values ImprovedPolicy(const SearchTree& tree, double discount) const;

  uint8_t considered_mask() const { return considered_; }

 private:
  // sigma(completed Q) of every legal action.
  Values SigmaCompletedQ(const SearchTree& tree, double discount) const;
  int ArgmaxScore(const SearchTree& tree, double discount,
                  int32_t required_visits) const;

  Values logits_{};  // masked, max subtracted
  Values gumbel_{};
  uint8_t mask_ = 0;
  uint8_t considered_ = 0;
  double network_value_ = 0;
  std::vector<int32_t> schedule_;
};

}  // namespace mmapzero::search

#endif  // MMAPZERO_COMMON_SEARCH_GUMBEL_ROOT_H_
