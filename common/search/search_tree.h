// The search tree of one game: a node arena (flat vector indexed by node id,
// three child ids per node, one per action), a hidden-state store (indexed
// by the node's hidden id, buffers reused across searches), MinMaxStats, and
// the PUCT rule and backup of the MuZero pseudocode (Schrittwieser et al.
// 2020, Appendix B and pseudocode `ucb_score`, `backpropagate`). MMapGame is
// a single-player game: values are never negated.
//
// Clear() keeps every buffer, so after the first search a tree allocates
// nothing per simulation.
#ifndef MMAPZERO_COMMON_SEARCH_SEARCH_TREE_H_
#define MMAPZERO_COMMON_SEARCH_SEARCH_TREE_H_

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/types/span.h"
#include "common/game/action.h"

namespace mmapzero::search {

inline constexpr int32_t kNoNode = -1;
inline constexpr uint8_t kAllActions = (1u << game::kNumActions) - 1;

struct Node {
  float prior = 0;
  float reward = 0;  // of the step into this node; 0 at the root
  double value_sum = 0;
  int32_t visits = 0;
  int32_t hidden = -1;    // index into the tree's hidden store; -1 = none
  bool expanded = false;  // evaluated; children (if any) created
  bool terminal = false;  // REAL_GAME: the game ended here, value 0
  std::array<int32_t, game::kNumActions> children{kNoNode, kNoNode, kNoNode};

  double Value() const { return visits > 0 ? value_sum / visits : 0.0; }
};

// The bounds of the Q values seen in one tree, to map them into [0, 1]
// (MuZero Appendix B: rewards are unbounded in MMapGame too).
class MinMaxStats {
 public:
  void Update(double value) {
    min_ = value < min_ ? value : min_;
    max_ = value > max_ ? value : max_;
  }
  double Normalize(double value) const {
    return max_ > min_ ? (value - min_) / (max_ - min_) : value;
  }

 private:
  double min_ = std::numeric_limits<double>::infinity();
  double max_ = -std::numeric_limits<double>::infinity();
};

struct PuctParams {
  double pb_c_base = 19652;
  double pb_c_init = 1.25;
  double discount = 0.9999;
};

// The pseudocode's ucb_score: exploration term scaled by the prior, plus
// the min-max normalised Q = reward + discount * value (0 when unvisited).
double PuctScore(const Node& parent, const Node& child,
                 const MinMaxStats& stats, const PuctParams& params);

class SearchTree {
 public:
  // Empties the tree, keeping its buffers.
  void Clear();

  int32_t AddNode(float prior);
  Node& node(int32_t id) { return nodes_[id]; }
  const Node& node(int32_t id) const { return nodes_[id]; }
  int32_t size() const { return static_cast<int32_t>(nodes_.size()); }
  static constexpr int32_t root() { return 0; }

  // Marks `id` evaluated: takes `*hidden` into the store (by swap: the
  // caller gets back a buffer to reuse) and creates one child per action in
  // `mask` with prior softmax(logits) over the mask.
  void Expand(int32_t id, const std::array<float, game::kNumActions>& logits,
              uint8_t mask, std::vector<float>* hidden);
  const std::vector<float>& hidden(int32_t index) const {
    return hidden_[index];
  }

  // Mixes Dirichlet noise into the root's children's priors:
  // prior = (1 - fraction) * prior + fraction * noise, over legal children.
  void AddRootNoise(absl::Span<const double> noise, double fraction);

  // The child action with the highest PuctScore; ties go to the lowest
  // action index. -1 when the node has no children.
  int SelectAction(int32_t id, const PuctParams& params) const;

  // Backs `value` (the leaf's value) up the path of node ids root..leaf
  // (pseudocode backpropagate).
  void Backup(absl::Span<const int32_t> path, double value, double discount);

  const MinMaxStats& min_max() const { return min_max_; }

 private:
  std::vector<Node> nodes_;
  std::vector<std::vector<float>> hidden_;
  int32_t num_hidden_ = 0;
  MinMaxStats min_max_;
};

}  // namespace mmapzero::search

#endif  // MMAPZERO_COMMON_SEARCH_SEARCH_TREE_H_
