// Demonstrations, the one unit both training paths use: an offer is kept
// only when it beats every earlier one, replays are paced by learner steps
// (the first at once), and the tail of a batch is replaced by their
// positions.
#include "common/training/demonstrations.h"

#include <memory>

#include "common/features/config_presets.h"
#include "common/training/training_test_support.h"
#include "common/workload/example_program_for_tests.h"
#include "gtest/gtest.h"

namespace mmapzero::training {
namespace {

MuZeroConfig Config(int interval_steps) {
  MuZeroConfig config = features::CpuPreset();
  config.mutable_training()->set_batch_size(8);
  config.mutable_training()->set_demonstration_fraction(0.25);
  config.mutable_training()->set_demonstration_interval_steps(interval_steps);
  return config;
}

TEST(DemonstrationsTest, PacedByLearnerStepsAndMixedIntoTheTail) {
  const auto program = SmallExampleProgram();
  ASSERT_NE(program, nullptr);
  Demonstrations demonstrations(program, Config(/*interval_steps=*/10), 1);
  ASSERT_TRUE(demonstrations.enabled());
  const Solution slow = PlayedByPreference(
      program,
      {game::Action::kDrop, game::Action::kCopy, game::Action::kNoCopy});
  const Solution fast = PlayedByPreference(
      program,
      {game::Action::kNoCopy, game::Action::kCopy, game::Action::kDrop});
  ASSERT_GT(fast.normalised_return(), slow.normalised_return());

  EXPECT_FALSE(demonstrations.TakeDue(0).has_value());  // nothing offered
  agent::Batch empty_handed(8);
  EXPECT_EQ(demonstrations.Mix(&empty_handed), 0);  // none kept yet

  ASSERT_TRUE(demonstrations.Offer(slow));
  std::optional<DemonstrationReplay> first = demonstrations.TakeDue(3);
  ASSERT_TRUE(first.has_value());  // the first at once
  EXPECT_TRUE(first->status.ok()) << first->status;
  EXPECT_GT(first->steps, 0);
  EXPECT_EQ(first->kept, 1);

  EXPECT_FALSE(demonstrations.Offer(slow));  // not better
  ASSERT_TRUE(demonstrations.Offer(fast));
  EXPECT_FALSE(demonstrations.TakeDue(12).has_value());  // 9 steps on: waits
  std::optional<DemonstrationReplay> second = demonstrations.TakeDue(13);
  ASSERT_TRUE(second.has_value());
  EXPECT_DOUBLE_EQ(second->normalised_return, fast.normalised_return());
  EXPECT_EQ(second->kept, 2);

  agent::Batch batch(8);
  for (agent::SampledPosition& position : batch) position.id = -7;
  EXPECT_EQ(demonstrations.Mix(&batch), 2);  // round(0.25 * 8)
  ASSERT_EQ(batch.size(), 8u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(batch[i].id, -7) << i;
  for (int i = 6; i < 8; ++i) {
    ASSERT_NE(batch[i].trajectory, nullptr) << i;
    EXPECT_TRUE(batch[i].trajectory->demonstration) << i;
  }
  const DemonstrationStats stats = demonstrations.stats();
  EXPECT_EQ(stats.replayed, 2);
  EXPECT_EQ(stats.mixed_positions, 2);
  EXPECT_DOUBLE_EQ(stats.best_offered, fast.normalised_return());
}

// A solution that does not replay is refused and counted as the error;
// without a program, or at fraction 0, offers are only noted.
TEST(DemonstrationsTest, RefusedReplaysAndDisabledDemonstrations) {
  const auto program = SmallExampleProgram();
  ASSERT_NE(program, nullptr);
  Demonstrations demonstrations(program, Config(0), 1);
  Solution broken = PlayedByPreference(
      program,
      {game::Action::kNoCopy, game::Action::kCopy, game::Action::kDrop});
  broken.mutable_decisions()->RemoveLast();
  ASSERT_TRUE(demonstrations.Offer(broken));
  std::optional<DemonstrationReplay> refused = demonstrations.TakeDue(0);
  ASSERT_TRUE(refused.has_value());
  EXPECT_FALSE(refused->status.ok());
  EXPECT_EQ(refused->kept, 0);
  EXPECT_FALSE(demonstrations.stats().error.empty());
  EXPECT_EQ(demonstrations.stats().replayed, 0);

  Demonstrations without_program(nullptr, Config(0), 1);
  EXPECT_FALSE(without_program.enabled());
  EXPECT_TRUE(without_program.Offer(broken));
  EXPECT_FALSE(without_program.TakeDue(0).has_value());
  EXPECT_DOUBLE_EQ(without_program.stats().best_offered,
                   broken.normalised_return());
  MuZeroConfig off = Config(0);
  off.mutable_training()->set_demonstration_fraction(0);
  EXPECT_FALSE(Demonstrations(program, off, 1).enabled());
}

}  // namespace
}  // namespace mmapzero::training
