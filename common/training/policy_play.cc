#include "common/training/policy_play.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <utility>

#include "common/agent/target_scale.h"
#include "common/base/check.h"
#include "common/features/feature_extractor.h"
#include "common/features/observation.h"
#include "common/search/batched_search.h"

namespace mmapzero::training {
namespace {

// The observation's hardware section (kept once per game).
std::vector<float> HardwareOf(const features::Observation& observation,
                              const FeatureConfig& features) {
  const auto begin =
      observation.vector.begin() + features::HardwareOffset(features);
  return std::vector<float>(begin, begin + features::kHardwareFeatures);
}

}  // namespace

int GreedyLegalAction(const std::array<float, 3>& policy_logits,
                      uint8_t legal_mask) {
  int best = -1;
  for (int a = 0; a < game::kNumActions; ++a) {
    if ((legal_mask & (1u << a)) == 0) continue;
    if (best < 0 || policy_logits[a] > policy_logits[best]) best = a;
  }
  return best;
}

std::vector<PolicyGame> PlaySampled(
    const std::shared_ptr<const game::Program>& program,
    const FeatureConfig& features, model::NetworkEvaluator& evaluator,
    int games, bool first_greedy, double temperature, uint64_t seed) {
  MMAPZERO_CHECK(games >= 1 && temperature > 0,
                 "PlaySampled needs a game and a positive temperature");
  std::vector<PolicyGame> played(games);
  for (PolicyGame& one : played) {
    one.game = std::make_unique<game::MMapGame>(program);
  }
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<features::Observation> observations(games);
  std::vector<const features::Observation*> batch;
  std::vector<int> live;          // games still playing, in order
  std::vector<uint8_t> legal_of;  // their legal actions
  std::vector<search::Inference> inference;
  while (true) {
    live.clear();
    legal_of.clear();
    batch.clear();
    for (int g = 0; g < games; ++g) {
      const game::MMapGame& game = *played[g].game;
      if (game.IsTerminal()) continue;
      // A live state has a legal action (Drop-backup leaves none without).
      const uint8_t legal = game.LegalActionMask();
      if (legal == 0) continue;
      features::Observe(game, features, &observations[g]);
      if (played[g].hardware.empty()) {
        played[g].hardware = HardwareOf(observations[g], features);
      }
      live.push_back(g);
      legal_of.push_back(legal);
      batch.push_back(&observations[g]);
    }
    if (live.empty()) break;
    evaluator.InitialInference(batch, &inference);
    for (size_t i = 0; i < live.size(); ++i) {
      PolicyGame& one = played[live[i]];
      const uint8_t legal = legal_of[i];
      const std::array<float, 3>& logits = inference[i].policy_logits;
      int chosen = -1;
      if (live[i] == 0 && first_greedy) {
        chosen = GreedyLegalAction(logits, legal);
      } else {
        float top = -std::numeric_limits<float>::infinity();
        for (int a = 0; a < game::kNumActions; ++a) {
          if (legal & (1u << a)) top = std::max(top, logits[a]);
        }
        std::array<double, game::kNumActions> weight{};
        double total = 0;
        for (int a = 0; a < game::kNumActions; ++a) {
          if ((legal & (1u << a)) == 0) continue;
          weight[a] = std::exp((logits[a] - top) / temperature);
          total += weight[a];
        }
        double draw = uniform(rng) * total;
        for (int a = 0; a < game::kNumActions; ++a) {
          if ((legal & (1u << a)) == 0) continue;
          chosen = a;
          draw -= weight[a];
          if (draw <= 0) break;
        }
      }
      one.game->ApplyAction(static_cast<game::Action>(chosen));
      ++one.decisions;
    }
  }
  return played;
}

PolicyGame PlayPolicy(const std::shared_ptr<const game::Program>& program,
                      const FeatureConfig& features,
                      model::NetworkEvaluator& evaluator) {
  return std::move(PlaySampled(program, features, evaluator, /*games=*/1,
                               /*first_greedy=*/true, /*temperature=*/1.0,
                               /*seed=*/0)
                       .front());
}

PolicyGame PlaySearched(const std::shared_ptr<const game::Program>& program,
                        const MuZeroConfig& config, int simulations,
                        uint64_t seed, model::NetworkEvaluator& evaluator) {
  MMAPZERO_CHECK(simulations >= 1, "PlaySearched needs a simulation");
  SearchConfig search_config = config.search();
  search_config.set_mode(SearchConfig::GUMBEL_REAL_GAME);
  search_config.set_simulations(simulations);
  search_config.set_root_exploration_fraction(0);
  search::BatchedSearch search(
      search_config, &evaluator,
      [features = config.features()](const game::MMapGame& game,
                                     features::Observation* out) {
        features::Observe(game, features, out);
      });
  search.set_reward_scale(agent::TargetScale(config.training(), *program));
  PolicyGame played;
  played.game = std::make_unique<game::MMapGame>(program);
  game::MMapGame* game = played.game.get();
  std::vector<search::SearchResult> results;
  while (!game->IsTerminal() && game->LegalActionMask() != 0) {
    const uint64_t seeds[] = {seed + static_cast<uint64_t>(played.decisions)};
    game::MMapGame* const games[] = {game};
    search.RunInPlace(games, seeds, /*temperature=*/0.0, &results);
    if (played.hardware.empty()) {
      played.hardware =
          HardwareOf(search.root_observation(0), config.features());
    }
    game->ApplyAction(results[0].action);
    ++played.decisions;
  }
  return played;
}

}  // namespace mmapzero::training
