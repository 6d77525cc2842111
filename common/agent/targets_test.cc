#include "common/agent/targets.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mmapzero::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;

// Four steps: rewards 1, 2, 3, 4; root values 10, 20, 30, 40; actions
// Copy, NoCopy, Drop, Copy; policy of step t = one-hot of t % 3.
Trajectory FourSteps() {
  Trajectory t;
  const float rewards[] = {1, 2, 3, 4};
  const float values[] = {10, 20, 30, 40};
  const uint8_t actions[] = {0, 1, 2, 0};
  for (int i = 0; i < 4; ++i) {
    TrajectoryStep s;
    s.reward = rewards[i];
    s.root_value = values[i];
    s.action = actions[i];
    s.policy[i % 3] = 1;
    t.steps.push_back(s);
  }
  return t;
}

constexpr TargetOptions kOptions{/*unroll_steps=*/2, /*td_steps=*/2,
                                 /*discount=*/0.9};

TEST(TargetsTest, HandComputedValuesInsideTheTrajectory) {
  const PositionTargets p = MakeTargets(FourSteps(), 1, kOptions);
  // z1 = 2 + 0.9*3 + 0.81*40 = 37.1; z2 = 3 + 0.9*4 (no bootstrap: t+n = T)
  // = 6.6; z3 = 4.
  EXPECT_THAT(p.value, ElementsAre(FloatNear(37.1f, 1e-4),
                                   FloatNear(6.6f, 1e-5), FloatNear(4, 1e-6)));
  // Reward into t: none at the root, then r1, r2.
  EXPECT_THAT(p.reward, ElementsAre(0, 2, 3));
  EXPECT_THAT(p.actions, ElementsAre(1, 2));
  EXPECT_THAT(p.policy_weight, ElementsAre(1, 1, 1));
  EXPECT_THAT(p.policy[0], ElementsAre(0, 1, 0));
  EXPECT_THAT(p.policy[2], ElementsAre(1, 0, 0));
}

TEST(TargetsTest, FirstPositionBootstrapsFromStoredRootValue) {
  const PositionTargets p = MakeTargets(FourSteps(), 0, kOptions);
  // z0 = 1 + 0.9*2 + 0.81*30 = 27.1; z1 = 37.1; z2 = 6.6.
  EXPECT_THAT(p.value,
              ElementsAre(FloatNear(27.1f, 1e-4), FloatNear(37.1f, 1e-4),
                          FloatNear(6.6f, 1e-5)));
  EXPECT_THAT(p.reward, ElementsAre(0, 1, 2));
  EXPECT_THAT(p.actions, ElementsAre(0, 1));
}

TEST(TargetsTest, PastTheEndIsAbsorbing) {
  const PositionTargets p = MakeTargets(FourSteps(), 3, kOptions);
  EXPECT_THAT(p.value, ElementsAre(FloatNear(4, 1e-6), 0, 0));
  // The last move's reward is the target of the first recurrent step.
  EXPECT_THAT(p.reward, ElementsAre(0, 4, 0));
  EXPECT_THAT(p.policy_weight, ElementsAre(1, 0, 0));
  EXPECT_THAT(p.policy[1],
              ElementsAre(FloatNear(1.0f / 3, 1e-6), FloatNear(1.0f / 3, 1e-6),
                          FloatNear(1.0f / 3, 1e-6)));
  // The move at 3, then Drop past the end.
  EXPECT_THAT(p.actions, ElementsAre(0, kPastEndAction));
}

TEST(TargetsTest, BackupPenaltyIsPartOfTheTransitionReward) {
  // Step 1 is a Drop that forced a backup: the game charged its penalty
  // (-5) in that step's reward on top of the Drop's own (0.5).
  Trajectory t = FourSteps();
  t.steps[1].action = 2;
  t.steps[1].reward = 0.5f - 5.0f;
  t.drop_backups = 1;
  const PositionTargets p = MakeTargets(t, 1, kOptions);
  EXPECT_THAT(p.reward, ElementsAre(0, FloatNear(-4.5f, 1e-6), 3));
  EXPECT_EQ(p.actions[0], 2);
  // z1 = -4.5 + 0.9*3 + 0.81*40 = 30.6.
  EXPECT_NEAR(p.value[0], 30.6f, 1e-4);
  // z0 = 1 + 0.9*(-4.5) + 0.81*30 = 21.25.
  EXPECT_NEAR(ValueTarget(t, 0, 2, 0.9), 21.25f, 1e-4);
}

TEST(TargetsTest, LongTdStepsSumToTheEnd) {
  // n >= T: the Monte-Carlo return, discounted.
  EXPECT_NEAR(ValueTarget(FourSteps(), 0, 10, 0.9),
              1 + 0.9 * 2 + 0.81 * 3 + 0.729 * 4, 1e-4);
  EXPECT_EQ(ValueTarget(FourSteps(), 4, 10, 0.9), 0);
}

TEST(TargetsTest, FastMovesCarryNoPolicyTarget) {
  Trajectory t = FourSteps();
  t.steps[1].fast_move = true;
  const PositionTargets p = MakeTargets(t, 0, kOptions);
  EXPECT_THAT(p.policy_weight, ElementsAre(1, 0, 1));
  EXPECT_FALSE(p.demonstration);
  // Values and rewards are unchanged by the flag.
  EXPECT_EQ(p.value, MakeTargets(FourSteps(), 0, kOptions).value);
}

TEST(TargetsTest, DemonstrationFlagReachesTheTargets) {
  Trajectory t = FourSteps();
  t.demonstration = true;
  EXPECT_TRUE(MakeTargets(t, 2, kOptions).demonstration);
}

}  // namespace
}  // namespace mmapzero::agent
