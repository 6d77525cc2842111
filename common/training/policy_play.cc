#include "common/training/policy_play.h"

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

PolicyGame PlayPolicy(const std::shared_ptr<const game::Program>& program,
                      const FeatureConfig& features,
                      model::NetworkEvaluator& evaluator) {
  PolicyGame played;
  played.game = std::make_unique<game::MMapGame>(program);
  game::MMapGame& game = *played.game;
  features::Observation observation;
  std::vector<search::Inference> inference;
  while (!game.IsTerminal()) {
    features::Observe(game, features, &observation);
    if (played.hardware.empty()) {
      played.hardware = HardwareOf(observation, features);
    }
    const features::Observation* batch[] = {&observation};
    evaluator.InitialInference(batch, &inference);
    const uint8_t legal = game.LegalActionMask();
    int best = -1;
    for (int a = 0; a < game::kNumActions; ++a) {
      if ((legal & (1u << a)) == 0) continue;
      if (best < 0 ||
          inference[0].policy_logits[a] > inference[0].policy_logits[best]) {
        best = a;
      }
    }
    // A live state has a legal action (Drop-backup leaves none without).
    if (best < 0) break;
    game.ApplyAction(static_cast<game::Action>(best));
    ++played.decisions;
  }
  return played;
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
