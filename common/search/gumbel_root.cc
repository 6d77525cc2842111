#include "common/search/gumbel_root.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mmapzero::search {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

bool Has(uint8_t mask, int a) { return (mask & (1u << a)) != 0; }

}  // namespace

std::vector<int32_t> ConsideredVisitSequence(int32_t considered,
                                             int32_t simulations) {
  std::vector<int32_t> sequence;
  if (considered <= 1) {
    for (int32_t i = 0; i < simulations; ++i) sequence.push_back(i);
    return sequence;
  }
  const int32_t log2max = static_cast<int32_t>(
      std::ceil(std::log2(static_cast<double>(considered))));
  std::vector<int32_t> visits(considered, 0);
  int32_t num_considered = considered;
  while (static_cast<int32_t>(sequence.size()) < simulations) {
    const int32_t extra = std::max(1, simulations / (log2max * num_considered));
    for (int32_t e = 0; e < extra; ++e) {
      sequence.insert(sequence.end(), visits.begin(),
                      visits.begin() + num_considered);
      for (int32_t i = 0; i < num_considered; ++i) ++visits[i];
    }
    num_considered = std::max(2, num_considered / 2);
  }
  sequence.resize(simulations);
  return sequence;
}

void GumbelRoot::Begin(const std::array<float, game::kNumActions>& logits,
                       uint8_t mask, int32_t considered, int32_t simulations,
                       double network_value, SearchRng* rng) {
  mask_ = mask;
  network_value_ = network_value;
  double max_logit = kNegInf;
  for (int a = 0; a < game::kNumActions; ++a) {
    if (Has(mask, a)) max_logit = std::max<double>(max_logit, logits[a]);
  }
  int legal = 0;
  for (int a = 0; a < game::kNumActions; ++a) {
    gumbel_[a] = rng->Gumbel();  // drawn for every action: same stream
    logits_[a] = Has(mask, a) ? logits[a] - max_logit : kNegInf;
    legal += Has(mask, a);
  }
  const int m = std::clamp(considered, 1, legal);
  // Gumbel-top-k: the m legal actions with the largest g + logits.
  considered_ = 0;
  for (int k = 0; k < m; ++k) {
    int best = -1;
    for (int a = 0; a < game::kNumActions; ++a) {
      if (!Has(mask, a) || Has(considered_, a)) continue;
      if (best < 0 || gumbel_[a] + logits_[a] > gumbel_[best] + logits_[best]) {
        best = a;
      }
    }
    considered_ |= static_cast<uint8_t>(1u << best);
  }
  schedule_ = ConsideredVisitSequence(m, simulations);
}

GumbelRoot::Values GumbelRoot::SigmaCompletedQ(const SearchTree& tree,
                                               double discount) const {
  const Node& root = tree.node(SearchTree::root());
  Values q{}, prior{};
  std::array<int32_t, game::kNumActions> visits{};
  int32_t sum_visits = 0, max_visits = 0;
  for (int a = 0; a < game::kNumActions; ++a) {
    if (root.children[a] == kNoNode) continue;
    const Node& child = tree.node(root.children[a]);
    visits[a] = child.visits;
    prior[a] = child.prior;
    q[a] = child.reward + discount * child.Value();
    sum_visits += child.visits;
    max_visits = std::max(max_visits, child.visits);
  }
  // Mixed value (eq. 33): the network value and the prior-weighted Q of the
  // visited actions, weighted by the visits.
  double weighted_q = 0, visited_prior = 0;
  for (int a = 0; a < game::kNumActions; ++a) {
    if (visits[a] == 0) continue;
    const double p = std::max(prior[a], std::numeric_limits<double>::min());
    weighted_q += p * q[a];
    visited_prior += p;
  }
  double mixed = network_value_;
  if (sum_visits > 0) {
    mixed = (network_value_ + sum_visits * weighted_q / visited_prior) /
            (sum_visits + 1);
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  Values completed{};
  for (int a = 0; a < game::kNumActions; ++a) {
    if (!Has(mask_, a)) continue;
    completed[a] = visits[a] > 0 ? q[a] : mixed;
    lo = std::min(lo, completed[a]);
    hi = std::max(hi, completed[a]);
  }
  const double scale = (kGumbelCVisit + max_visits) * kGumbelCScale;
  for (int a = 0; a < game::kNumActions; ++a) {
    if (!Has(mask_, a)) continue;
    completed[a] = scale * (completed[a] - lo) / std::max(hi - lo, 1e-8);
  }
  return completed;
}

int GumbelRoot::ArgmaxScore(const SearchTree& tree, double discount,
                            int32_t required_visits) const {
  const Values sigma = SigmaCompletedQ(tree, discount);
  const Node& root = tree.node(SearchTree::root());
  int best = -1;
  double best_score = kNegInf;
  for (int a = 0; a < game::kNumActions; ++a) {
    if (!Has(considered_, a)) continue;
    if (required_visits >= 0 &&
        tree.node(root.children[a]).visits != required_visits) {
      continue;
    }
    const double score = gumbel_[a] + logits_[a] + sigma[a];
    if (best < 0 || score > best_score) {
      best = a;
      best_score = score;
    }
  }
  return best;
}

int GumbelRoot::SelectAction(const SearchTree& tree, int32_t index,
                             double discount) const {
  const int best = ArgmaxScore(tree, discount, schedule_[index]);
  // The schedule always leaves an action at the required count; this is a
  // guard, not a path the schedule takes.
  return best >= 0 ? best : ArgmaxScore(tree, discount, -1);
}

int GumbelRoot::FinalAction(const SearchTree& tree, double discount) const {
  const Node& root = tree.node(SearchTree::root());
  int32_t most = 0;
  for (int a = 0; a < game::kNumActions; ++a) {
    if (Has(considered_, a)) {
      most = std::max(most, tree.node(root.children[a]).visits);
    }
  }
  return ArgmaxScore(tree, discount, most);
}

GumbelRoot::Values GumbelRoot::ImprovedPolicy(const SearchTree& tree,
                                              double discount) const {
  const Values sigma = SigmaCompletedQ(tree, discount);
  Values policy{};
  double max_score = kNegInf;
  for (int a = 0; a < game::kNumActions; ++a) {
    if (Has(mask_, a)) max_score = std::max(max_score, logits_[a] + sigma[a]);
  }
  double sum = 0;
  for (int a = 0; a < game::kNumActions; ++a) {
    if (!Has(mask_, a)) continue;
    policy[a] = std::exp(logits_[a] + sigma[a] - max_score);
    sum += policy[a];
  }
  for (double& p : policy) p /= sum;
  return policy;
}

}  // namespace mmapzero::search
