#include "common/search/batched_search.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/check.h"
#include "common/search/temperature.h"

namespace mmapzero::search {

BatchedSearch::BatchedSearch(const SearchConfig& config, Evaluator* evaluator,
                             ObservationSource observe)
    : config_(config), evaluator_(evaluator), observe_(std::move(observe)) {
  puct_.pb_c_base = config.pb_c_base();
  puct_.pb_c_init = config.pb_c_init();
  puct_.discount = config.discount();
}

void BatchedSearch::Run(absl::Span<const game::MMapGame* const> games,
                        absl::Span<const uint64_t> seeds, double temperature,
                        std::vector<SearchResult>* results) {
  MMAPZERO_CHECK(games.size() == seeds.size(), "one seed per game");
  in_place_ = {};
  ObserveRoots(games);
  Search(games, seeds, temperature, results);
}

void BatchedSearch::RunInPlace(absl::Span<game::MMapGame* const> games,
                               absl::Span<const uint64_t> seeds,
                               double temperature,
                               std::vector<SearchResult>* results) {
  MMAPZERO_CHECK(games.size() == seeds.size(), "one seed per game");
  const_games_.assign(games.begin(), games.end());
  in_place_ = games;
  ObserveRoots(const_games_);
  Search(const_games_, seeds, temperature, results);
  in_place_ = {};
}

void BatchedSearch::ObserveRoots(
    absl::Span<const game::MMapGame* const> games) {
  const int32_t n = static_cast<int32_t>(games.size());
  if (static_cast<int32_t>(observations_.size()) < n) observations_.resize(n);
  root_observation_ptrs_.clear();
  root_masks_.clear();
  for (int32_t i = 0; i < n; ++i) {
    MMAPZERO_CHECK(!games[i]->IsTerminal(), "search from a terminal state");
    observe_(*games[i], &observations_[i]);
    root_observation_ptrs_.push_back(&observations_[i]);
    root_masks_.push_back(games[i]->LegalActionMask());
  }
}

absl::Status BatchedSearch::RunFromObservations(
    absl::Span<const features::Observation* const> observations,
    absl::Span<const uint8_t> legal_masks, absl::Span<const uint64_t> seeds,
    double temperature, std::vector<SearchResult>* results) {
  MMAPZERO_CHECK(observations.size() == legal_masks.size() &&
                     observations.size() == seeds.size(),
                 "one legal mask and one seed per observation");
  if (real_game()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "search from observations: SearchConfig.mode ",
        SearchConfig::Mode_Name(config_.mode()),
        " needs game states at the roots"));
  }
  for (size_t i = 0; i < legal_masks.size(); ++i) {
    if (legal_masks[i] == 0 || (legal_masks[i] & ~kAllActions) != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "search from observations: root ", i, " has legal mask ",
          static_cast<int>(legal_masks[i]), "; want a nonzero subset of ",
          static_cast<int>(kAllActions)));
    }
  }
  root_observation_ptrs_.assign(observations.begin(), observations.end());
  root_masks_.assign(legal_masks.begin(), legal_masks.end());
  Search({}, seeds, temperature, results);
  return absl::OkStatus();
}

void BatchedSearch::Search(absl::Span<const game::MMapGame* const> games,
                           absl::Span<const uint64_t> seeds, double temperature,
                           std::vector<SearchResult>* results) {
  const int32_t n = static_cast<int32_t>(seeds.size());
  if (static_cast<int32_t>(slots_.size()) < n) slots_.resize(n);
  for (int32_t i = 0; i < n; ++i) {
    slots_[i].tree.Clear();
    slots_[i].rng.Seed(seeds[i]);
  }
  EvaluateRoots(n);

  const SearchConfig::Mode mode = config_.mode();
  const int32_t simulations =
      mode == SearchConfig::POLICY_ONLY ? 0 : config_.simulations();
  for (int32_t i = 0; i < n; ++i) {
    Slot& slot = slots_[i];
    if (mode == SearchConfig::LEARNED_MODEL ||
        mode == SearchConfig::REAL_GAME) {
      AddRootNoise(&slot);
    } else if (gumbel()) {
      slot.gumbel.Begin(slot.root_logits, slot.root_mask,
                        config_.gumbel_considered_actions(), simulations,
                        slot.network_value, &slot.rng);
    }
    if (real_game()) {
      MMAPZERO_CHECK(static_cast<int32_t>(games.size()) == n,
                     "REAL_GAME searches games");
      if (!in_place_.empty()) {
        slot.game = in_place_[i];
      } else {
        if (slot.work == nullptr) {
          slot.work = games[i]->Clone();
        } else {
          *slot.work = *games[i];
        }
        slot.game = slot.work.get();
      }
    }
  }

  for (int32_t round = 0; round < simulations; ++round) {
    if (real_game()) {
      SimulateRealGame(round, n);
    } else {
      SimulateLearned(round, n);
    }
  }

  results->resize(n);
  for (int32_t i = 0; i < n; ++i)
    Finish(&slots_[i], temperature, &(*results)[i]);
}

void BatchedSearch::EvaluateRoots(int32_t num_games) {
  evaluator_->InitialInference(root_observation_ptrs_, &inferences_);
  for (int32_t i = 0; i < num_games; ++i) {
    Slot& slot = slots_[i];
    Inference& inference = inferences_[i];
    slot.root_mask = root_masks_[i];
    slot.root_logits = inference.policy_logits;
    slot.network_value = inference.value;
    const int32_t root = slot.tree.AddNode(1.0f);
    slot.tree.Expand(root, inference.policy_logits, slot.root_mask,
                     &inference.hidden);
  }
}

void BatchedSearch::AddRootNoise(Slot* slot) {
  const double fraction = config_.root_exploration_fraction();
  const double alpha = config_.root_dirichlet_alpha();
  if (fraction <= 0 || alpha <= 0) return;
  std::array<double, game::kNumActions> noise{};
  int legal = 0;
  for (int a = 0; a < game::kNumActions; ++a)
    legal += (slot->root_mask >> a) & 1;
  // Noise over the legal actions only, in action order.
  std::array<double, game::kNumActions> draw{};
  slot->rng.Dirichlet(alpha, absl::MakeSpan(draw.data(), legal));
  for (int a = 0, k = 0; a < game::kNumActions; ++a) {
    if ((slot->root_mask >> a) & 1) noise[a] = draw[k++];
  }
  slot->tree.AddRootNoise(noise, fraction);
}

int32_t BatchedSearch::SelectLearned(Slot* slot, int32_t round) {
  SearchTree& tree = slot->tree;
  slot->path.clear();
  int32_t node = SearchTree::root();
  slot->path.push_back(node);
  const bool gumbel_root = gumbel();
  while (tree.node(node).expanded && !tree.node(node).terminal) {
    const int action =
        (gumbel_root && node == SearchTree::root())
            ? slot->gumbel.SelectAction(tree, round, puct_.discount)
            : tree.SelectAction(node, puct_);
    if (action < 0) break;  // expanded with no legal action
    node = tree.node(node).children[action];
    slot->path.push_back(node);
  }
  return node;
}

void BatchedSearch::SimulateLearned(int32_t round, int32_t num_games) {
  leaves_.clear();
  hidden_ptrs_.clear();
  actions_.clear();
  for (int32_t i = 0; i < num_games; ++i) {
    Slot& slot = slots_[i];
    const int32_t leaf = SelectLearned(&slot, round);
    const auto& path = slot.path;
    MMAPZERO_CHECK(path.size() >= 2, "the root always has a legal child");
    const Node& parent = slot.tree.node(path[path.size() - 2]);
    int action = 0;
    while (parent.children[action] != leaf) ++action;
    leaves_.push_back({i, leaf, kAllActions});
    hidden_ptrs_.push_back(&slot.tree.hidden(parent.hidden));
    actions_.push_back(action);
  }
  evaluator_->RecurrentInference(hidden_ptrs_, actions_, &inferences_);
  for (size_t j = 0; j < leaves_.size(); ++j) {
    Slot& slot = slots_[leaves_[j].slot];
    Inference& inference = inferences_[j];
    slot.tree.node(leaves_[j].node).reward = inference.reward;
    slot.tree.Expand(leaves_[j].node, inference.policy_logits, kAllActions,
                     &inference.hidden);
    slot.tree.Backup(slot.path, inference.value, puct_.discount);
  }
}

bool BatchedSearch::real_game() const {
  return config_.mode() == SearchConfig::REAL_GAME ||
         config_.mode() == SearchConfig::GUMBEL_REAL_GAME;
}

bool BatchedSearch::gumbel() const {
  return config_.mode() == SearchConfig::GUMBEL ||
         config_.mode() == SearchConfig::GUMBEL_REAL_GAME;
}

void BatchedSearch::SimulateRealGame(int32_t round, int32_t num_games) {
  const bool gumbel_root = gumbel();
  leaves_.clear();
  observation_ptrs_.clear();
  for (int32_t i = 0; i < num_games; ++i) {
    Slot& slot = slots_[i];
    SearchTree& tree = slot.tree;
    game::MMapGame& game = *slot.game;
    slot.path.clear();
    int32_t node = SearchTree::root();
    slot.path.push_back(node);
    int32_t steps = 0;
    double reward = 0;
    while (tree.node(node).expanded && !tree.node(node).terminal) {
      const int action =
          (gumbel_root && node == SearchTree::root())
              ? slot.gumbel.SelectAction(tree, round, puct_.discount)
              : tree.SelectAction(node, puct_);
      if (action < 0) break;
      reward = reward_scale_ *
               game.ApplyAction(static_cast<game::Action>(action))
                   .transition_reward();
      ++steps;
      node = tree.node(node).children[action];
      slot.path.push_back(node);
    }
    Node& leaf = tree.node(node);
    if (!leaf.expanded) {
      leaf.reward = static_cast<float>(reward);
      const uint8_t mask = game.IsTerminal() ? 0 : game.LegalActionMask();
      if (mask == 0) {
        leaf.expanded = true;
        leaf.terminal = true;
      } else {
        const int32_t j = static_cast<int32_t>(leaves_.size());
        if (static_cast<int32_t>(observations_.size()) <= j) {
          observations_.resize(j + 1);
        }
        observe_(game, &observations_[j]);
        leaves_.push_back({i, node, mask});
      }
    }
    if (leaf.terminal) tree.Backup(slot.path, 0.0, puct_.discount);
    for (int32_t s = 0; s < steps; ++s) game.Undo();
  }
  if (leaves_.empty()) return;
  for (size_t j = 0; j < leaves_.size(); ++j) {
    observation_ptrs_.push_back(&observations_[j]);
  }
  evaluator_->InitialInference(observation_ptrs_, &inferences_);
  for (size_t j = 0; j < leaves_.size(); ++j) {
    Slot& slot = slots_[leaves_[j].slot];
    Inference& inference = inferences_[j];
    slot.tree.Expand(leaves_[j].node, inference.policy_logits, leaves_[j].mask,
                     &inference.hidden);
  }
  // Back up after every expansion so that slot.path (one per game) is the
  // path of this round's leaf.
  for (size_t j = 0; j < leaves_.size(); ++j) {
    Slot& slot = slots_[leaves_[j].slot];
    slot.tree.Backup(slot.path, inferences_[j].value, puct_.discount);
  }
}

void BatchedSearch::Finish(Slot* slot, double temperature,
                           SearchResult* result) {
  const SearchTree& tree = slot->tree;
  const Node& root = tree.node(SearchTree::root());
  *result = SearchResult();
  result->legal_mask = slot->root_mask;
  result->network_value = slot->network_value;
  result->root_value =
      root.visits > 0 ? static_cast<float>(root.Value()) : slot->network_value;
  std::array<double, game::kNumActions> prior{}, visits{};
  int32_t total = 0;
  for (int a = 0; a < game::kNumActions; ++a) {
    if (root.children[a] == kNoNode) continue;
    const Node& child = tree.node(root.children[a]);
    result->visits[a] = child.visits;
    visits[a] = child.visits;
    prior[a] = child.prior;
    total += child.visits;
  }

  if (gumbel()) {
    const auto policy = slot->gumbel.ImprovedPolicy(tree, puct_.discount);
    for (int a = 0; a < game::kNumActions; ++a) {
      result->policy[a] = static_cast<float>(policy[a]);
    }
    result->action = static_cast<game::Action>(
        slot->gumbel.FinalAction(tree, puct_.discount));
    return;
  }
  const auto& weights = total > 0 ? visits : prior;
  double sum = 0;
  for (double w : weights) sum += w;
  for (int a = 0; a < game::kNumActions; ++a) {
    result->policy[a] = static_cast<float>(weights[a] / sum);
  }
  result->action = static_cast<game::Action>(
      SampleWithTemperature(weights, slot->root_mask, temperature, &slot->rng));
}

}  // namespace mmapzero::search
