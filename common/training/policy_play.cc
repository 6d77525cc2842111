#include "common/training/policy_play.h"

#include "common/features/feature_extractor.h"
#include "common/features/observation.h"

namespace mmapzero::training {

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
      const auto begin =
          observation.vector.begin() + features::HardwareOffset(features);
      played.hardware.assign(begin, begin + features::kHardwareFeatures);
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

}  // namespace mmapzero::training
