#include "common/search/search_tree.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace mmapzero::search {

double PuctScore(const Node& parent, const Node& child,
                 const MinMaxStats& stats, const PuctParams& params) {
  double pb_c =
      std::log((parent.visits + params.pb_c_base + 1) / params.pb_c_base) +
      params.pb_c_init;
  pb_c *= std::sqrt(static_cast<double>(parent.visits)) / (child.visits + 1);
  const double prior_score = pb_c * child.prior;
  const double value_score =
      child.visits > 0
          ? stats.Normalize(child.reward + params.discount * child.Value())
          : 0.0;
  return prior_score + value_score;
}

void SearchTree::Clear() {
  nodes_.clear();
  num_hidden_ = 0;
  min_max_ = MinMaxStats();
}

int32_t SearchTree::AddNode(float prior) {
  nodes_.emplace_back();
  nodes_.back().prior = prior;
  return static_cast<int32_t>(nodes_.size()) - 1;
}

void SearchTree::Expand(int32_t id,
                        const std::array<float, game::kNumActions>& logits,
                        uint8_t mask, std::vector<float>* hidden) {
  if (num_hidden_ == static_cast<int32_t>(hidden_.size()))
    hidden_.emplace_back();
  std::swap(hidden_[num_hidden_], *hidden);
  const int32_t hidden_id = num_hidden_++;

  float max_logit = -std::numeric_limits<float>::infinity();
  for (int a = 0; a < game::kNumActions; ++a) {
    if (mask & (1u << a)) max_logit = std::max(max_logit, logits[a]);
  }
  std::array<float, game::kNumActions> prior{};
  float sum = 0;
  for (int a = 0; a < game::kNumActions; ++a) {
    if (mask & (1u << a)) {
      prior[a] = std::exp(logits[a] - max_logit);
      sum += prior[a];
    }
  }
  for (int a = 0; a < game::kNumActions; ++a) {
    if (mask & (1u << a)) {
      const int32_t child = AddNode(prior[a] / sum);  // may reallocate nodes_
      nodes_[id].children[a] = child;
    }
  }
  nodes_[id].hidden = hidden_id;
  nodes_[id].expanded = true;
}

void SearchTree::AddRootNoise(absl::Span<const double> noise, double fraction) {
  for (int a = 0; a < game::kNumActions; ++a) {
    const int32_t child = nodes_[root()].children[a];
    if (child == kNoNode) continue;
    Node& n = nodes_[child];
    n.prior =
        static_cast<float>((1 - fraction) * n.prior + fraction * noise[a]);
  }
}

int SearchTree::SelectAction(int32_t id, const PuctParams& params) const {
  const Node& parent = nodes_[id];
  int best = -1;
  double best_score = -std::numeric_limits<double>::infinity();
  for (int a = 0; a < game::kNumActions; ++a) {
    const int32_t child = parent.children[a];
    if (child == kNoNode) continue;
    const double score = PuctScore(parent, nodes_[child], min_max_, params);
    if (best < 0 || score > best_score) {
      best = a;
      best_score = score;
    }
  }
  return best;
}

void SearchTree::Backup(absl::Span<const int32_t> path, double value,
                        double discount) {
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    Node& n = nodes_[*it];
    n.value_sum += value;
    n.visits += 1;
    min_max_.Update(n.reward + discount * n.Value());
    value = n.reward + discount * value;
  }
}

}  // namespace mmapzero::search
