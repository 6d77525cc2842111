// SampleBatch windows become positions at step 0 of their window, with
// every field carried over; a malformed window names its field.
#include "learner/window_positions.h"

#include <gtest/gtest.h>

#include "gmock/gmock.h"

namespace mmapzero::learner {
namespace {

using ::testing::HasSubstr;

v1::SampleBatchResponse TwoWindows() {
  v1::SampleBatchResponse response;
  for (int w = 0; w < 2; ++w) {
    v1::TrajectoryWindow* window = response.add_windows();
    window->set_trajectory_id(40 + w);
    window->set_start_step(3);
    window->set_trajectory_length(9);
    window->mutable_window()->set_parameter_version(12);
    for (int s = 0; s < 3; ++s) {
      v1::TrajectoryStep* step = window->mutable_window()->add_steps();
      if (s == 0) {
        step->set_occupancy(std::string("\x00\xff\x80\x01", 4));
        step->add_vector(0.5f);
        step->add_vector(-1);
      }
      step->set_action(s == 1 ? Action::DROP : Action::COPY);
      step->set_legal_mask(5);
      step->set_reward(-0.25f * s);
      step->set_root_value(1.5f);
      step->add_policy(0.2f);
      step->add_policy(0.3f);
      step->add_policy(0.5f);
    }
  }
  return response;
}

TEST(WindowPositionsTest, WindowsBecomePositionsAtTheirFirstStep) {
  absl::StatusOr<agent::Batch> batch = PositionsFromWindows(TwoWindows());
  ASSERT_TRUE(batch.ok()) << batch.status();
  ASSERT_EQ(batch->size(), 2u);
  const agent::SampledPosition& p = (*batch)[1];
  EXPECT_EQ(p.id, 41);
  EXPECT_EQ(p.step, 0);
  ASSERT_EQ(p.trajectory->steps.size(), 3u);
  const agent::TrajectoryStep& first = p.trajectory->steps[0];
  EXPECT_EQ(first.observation.occupancy,
            (std::vector<uint8_t>{0, 255, 128, 1}));
  EXPECT_EQ(first.observation.vector, (std::vector<float>{0.5f, -1}));
  EXPECT_EQ(p.trajectory->steps[1].action, 2);
  EXPECT_EQ(p.trajectory->steps[2].reward, -0.5f);
  EXPECT_EQ(first.legal_mask, 5);
  EXPECT_EQ(first.policy[2], 0.5f);
  EXPECT_EQ(p.trajectory->parameter_version, 12);
}

TEST(WindowPositionsTest, MalformedWindowsNameTheField) {
  v1::SampleBatchResponse policy = TwoWindows();
  policy.mutable_windows(1)->mutable_window()->mutable_steps(2)->add_policy(0);
  absl::StatusOr<agent::Batch> batch = PositionsFromWindows(policy);
  EXPECT_EQ(batch.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(batch.status().message()),
              HasSubstr("windows[1].window.steps[2].policy"));

  v1::SampleBatchResponse action = TwoWindows();
  action.mutable_windows(0)->mutable_window()->mutable_steps(1)->set_action(
      static_cast<Action>(7));
  batch = PositionsFromWindows(action);
  EXPECT_THAT(std::string(batch.status().message()),
              HasSubstr("windows[0].window.steps[1].action: must be 0..2"));

  v1::SampleBatchResponse empty = TwoWindows();
  empty.mutable_windows(0)->mutable_window()->clear_steps();
  EXPECT_THAT(std::string(PositionsFromWindows(empty).status().message()),
              HasSubstr("windows[0].window.steps: must not be empty"));

  v1::SampleBatchResponse blind = TwoWindows();
  blind.mutable_windows(1)
      ->mutable_window()
      ->mutable_steps(0)
      ->clear_occupancy();
  blind.mutable_windows(1)->mutable_window()->mutable_steps(0)->clear_vector();
  EXPECT_THAT(std::string(PositionsFromWindows(blind).status().message()),
              HasSubstr("windows[1].window.steps[0]: has no observation"));
}

}  // namespace
}  // namespace mmapzero::learner
