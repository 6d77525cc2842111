// One network plays programs of any size on any hardware profile: the
// observation's sizes depend on the FeatureConfig alone (feature_extractor.h),
// so a network built once for the `cpu` preset's features plays generated
// programs of about 300 and 16,500 buffers on a TPU and a GPU profile, each
// game to its end, greedily on its policy, and every plan it makes passes
// the independent validator. The hardware section of the observation tells
// the profiles apart.
#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "common/features/config_presets.h"
#include "common/features/feature_extractor.h"
#include "common/features/feature_hash.h"
#include "common/game/mmap_game.h"
#include "common/game/program.h"
#include "common/model/compute_threads.h"
#include "common/model/network_evaluator.h"
#include "common/model/networks.h"
#include "common/validate/validator.h"
#include "common/workload/generator.h"
#include "gtest/gtest.h"

namespace mmapzero::model {
namespace {

struct Played {
  int buffers = 0;
  std::vector<float> hardware;  // the first observation's hardware section
  double normalised_return = 0;
};

// Plays `program` to the end with `evaluator`'s policy, greedily among the
// legal actions, and validates the plan.
Played PlayGreedily(const std::shared_ptr<const game::Program>& program,
                    const FeatureConfig& features,
                    NetworkEvaluator& evaluator) {
  Played played;
  played.buffers = program->num_buffers();
  game::MMapGame game(program);
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
      if (!(legal & (1u << a))) continue;
      if (best < 0 ||
          inference[0].policy_logits[a] > inference[0].policy_logits[best]) {
        best = a;
      }
    }
    EXPECT_GE(best, 0) << "no legal action at depth " << game.depth();
    if (best < 0) break;
    game.ApplyAction(static_cast<game::Action>(best));
  }
  const Solution solution = game.ToSolution();
  const validate::ValidationReport report =
      validate::ValidateSolution(program->source(), solution);
  EXPECT_TRUE(report.ok) << program->name() << ": "
                         << (report.violations.empty()
                                 ? std::string()
                                 : report.violations[0].message);
  played.normalised_return = game.NormalisedReturn();
  return played;
}

TEST(AnyProgramTest, OneNetworkPlaysSmallAndLargeProgramsOnTwoProfiles) {
  SetComputeThreads(1);
  absl::StatusOr<MuZeroConfig> config = features::PresetByName("cpu");
  ASSERT_TRUE(config.ok()) << config.status();
  const FeatureConfig& features = config->features();
  torch::manual_seed(1);
  absl::StatusOr<MuZeroNetwork> network =
      CreateNetwork(config->network(), ShapeOf(features), torch::kCPU);
  ASSERT_TRUE(network.ok()) << network.status();
  EXPECT_EQ((*network)->shape().feature_hash, features::FeatureHash(features));
  NetworkEvaluator evaluator(*network);

  std::vector<std::vector<float>> hardware_by_profile;
  for (const std::string profile : {"tpu-v4i", "gpu-h100"}) {
    std::vector<std::vector<float>> seen;
    for (const int target : {300, 16'500}) {
      GeneratorOptions options;
      options.family = ModelFamily::kTransformer;
      options.target_buffers = target;
      options.seed = 7;
      options.hardware_profile = profile;
      absl::StatusOr<Workload> workload = GenerateWorkload(options);
      ASSERT_TRUE(workload.ok()) << workload.status();
      absl::StatusOr<std::shared_ptr<const game::Program>> program =
          game::Program::Create(*workload);
      ASSERT_TRUE(program.ok()) << program.status();
      const Played played = PlayGreedily(*program, features, evaluator);
      EXPECT_GE(played.buffers, target * 9 / 10) << profile;
      EXPECT_LE(played.buffers, target * 11 / 10) << profile;
      EXPECT_GE(played.normalised_return, 0.0) << profile << " " << target;
      EXPECT_LE(played.normalised_return, 1.0) << profile << " " << target;
      ASSERT_EQ(played.hardware.size(),
                static_cast<size_t>(features::kHardwareFeatures));
      EXPECT_EQ(played.hardware[0], 1.0f) << "profile given";
      seen.push_back(played.hardware);
    }
    // The hardware section is the profile's, whatever the program's size.
    EXPECT_EQ(seen[0], seen[1]) << profile;
    hardware_by_profile.push_back(seen[0]);
  }
  // ...and tells the two profiles apart.
  EXPECT_NE(hardware_by_profile[0], hardware_by_profile[1]);
}

}  // namespace
}  // namespace mmapzero::model
