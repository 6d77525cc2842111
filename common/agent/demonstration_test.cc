#include "common/agent/demonstration.h"

#include <bit>
#include <cmath>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

#include "common/agent/target_scale.h"
#include "common/features/config_presets.h"
#include "common/features/feature_extractor.h"
#include "common/solvers/solver.h"
#include "common/workload/example_program_for_tests.h"

namespace mmapzero::agent {
namespace {

// The fast-first policy's game (NoCopy, then Copy, then Drop) as a solution.
Solution FastFirst(const std::shared_ptr<const game::Program>& program) {
  game::MMapGame game(program);
  while (!game.IsTerminal()) {
    const uint8_t mask = game.LegalActionMask();
    game.ApplyAction(mask & 2   ? game::Action::kNoCopy
                     : mask & 1 ? game::Action::kCopy
                                : game::Action::kDrop);
  }
  return game.ToSolution();
}

TEST(DemonstrationTest, ReplaysTheSolutionAsDecisions) {
  auto program = SmallExampleProgram();
  const Solution solution = FastFirst(program);
  const MuZeroConfig config = features::CpuPreset();
  absl::StatusOr<Trajectory> shown =
      DemonstrationFromSolution(program, solution, config);
  ASSERT_TRUE(shown.ok()) << shown.status();
  EXPECT_TRUE(shown->demonstration);
  EXPECT_NEAR(shown->episode_return, solution.return_us(), 1e-6);
  EXPECT_NEAR(shown->normalised_return, solution.normalised_return(), 1e-9);
  ASSERT_FALSE(shown->steps.empty());
  EXPECT_LT(shown->steps.size(), static_cast<size_t>(program->num_buffers()))
      << "forced moves are folded";
  const double scale = TargetScale(config.training(), *program);
  double sum = 0;
  for (size_t i = 0; i < shown->steps.size(); ++i) {
    const TrajectoryStep& step = shown->steps[i];
    EXPECT_TRUE((step.legal_mask >> step.action) & 1);
    if (i > 0) {
      EXPECT_GT(std::popcount(step.legal_mask), 1);
    }
    EXPECT_EQ(step.policy[step.action], 1.0f);  // one-hot on its action
    EXPECT_EQ(step.observation.vector.size(),
              static_cast<size_t>(features::VectorSize(config.features())));
    sum += step.reward;
  }
  EXPECT_NEAR(sum, scale * solution.return_us(), 1e-3 * (1 + sum));
  // Root values are the exact discounted returns-to-go.
  const double discount = config.search().discount();
  const size_t last = shown->steps.size() - 1;
  EXPECT_FLOAT_EQ(shown->steps[last].root_value, shown->steps[last].reward);
  EXPECT_NEAR(shown->steps[0].root_value,
              shown->steps[0].reward + discount * shown->steps[1].root_value,
              1e-3);
}

TEST(DemonstrationTest, IllegalOrMissingDecisionIsAnErrorNamingTheBuffer) {
  auto program = SmallExampleProgram();
  Solution solution = FastFirst(program);
  const MuZeroConfig config = features::CpuPreset();
  Solution missing = solution;
  missing.mutable_decisions()->RemoveLast();
  const int32_t last = solution.decisions(solution.decisions_size() - 1)
                           .buffer_id();
  absl::StatusOr<Trajectory> shown =
      DemonstrationFromSolution(program, missing, config);
  ASSERT_FALSE(shown.ok());
  EXPECT_NE(shown.status().message().find("has no decision"),
            std::string::npos)
      << shown.status();
  EXPECT_NE(shown.status().message().find(absl::StrCat("buffer ", last)),
            std::string::npos)
      << shown.status();

  // NoCopy of an operand whose tensor was never in fast memory is illegal.
  Solution illegal = solution;
  for (BufferDecision& d : *illegal.mutable_decisions()) {
    d.set_action(NO_COPY);
  }
  shown = DemonstrationFromSolution(program, illegal, config);
  ASSERT_FALSE(shown.ok());
  EXPECT_NE(shown.status().message().find("is illegal here"),
            std::string::npos)
      << shown.status();
}

TEST(TargetScaleTest, NormalisedMapsTheFullReturnToOneHundred) {
  auto program = SmallExampleProgram();
  TrainingConfig training;
  EXPECT_EQ(TargetScale(training, *program), 1.0);  // RAW
  training.set_target_scaling(TrainingConfig::NORMALISED);
  EXPECT_NEAR(TargetScale(training, *program) * program->max_return_us(),
              kNormalisedFullReturn, 1e-9);
}

}  // namespace
}  // namespace mmapzero::agent
