#include "common/agent/trajectory_proto.h"

#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::agent {
namespace {

using ::testing::HasSubstr;

// Two steps, 4-byte occupancy, 2-float vector, every field distinct.
Trajectory TwoSteps() {
  Trajectory t;
  t.episode_return = -3.5;
  t.normalised_return = 0.25;
  t.parameter_version = 42;
  t.drop_backups = 1;
  TrajectoryStep a;
  a.observation = {{0, 1, 128, 255}, {0.5f, -1.0f}};
  a.buffer = 7;
  a.action = 2;
  a.legal_mask = 5;
  a.reward = -1.5f;
  a.root_value = 0.75f;
  a.policy = {0.1f, 0.2f, 0.7f};
  TrajectoryStep b = a;
  b.observation = {{9, 8, 7, 6}, {2.0f, 3.0f}};
  b.buffer = 8;
  b.action = 0;
  b.legal_mask = 1;
  b.reward = -2.0f;
  b.root_value = -0.5f;
  b.policy = {1.0f, 0.0f, 0.0f};
  t.steps = {a, b};
  return t;
}

void ExpectSame(const Trajectory& a, const Trajectory& b) {
  EXPECT_EQ(a.episode_return, b.episode_return);
  EXPECT_EQ(a.normalised_return, b.normalised_return);
  EXPECT_EQ(a.parameter_version, b.parameter_version);
  EXPECT_EQ(a.drop_backups, b.drop_backups);
  EXPECT_EQ(a.continues, b.continues);
  EXPECT_EQ(a.context_steps, b.context_steps);
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) {
    const TrajectoryStep& x = a.steps[i];
    const TrajectoryStep& y = b.steps[i];
    EXPECT_EQ(x.observation.occupancy, y.observation.occupancy) << i;
    EXPECT_EQ(x.observation.vector, y.observation.vector) << i;
    EXPECT_EQ(x.buffer, y.buffer) << i;
    EXPECT_EQ(x.action, y.action) << i;
    EXPECT_EQ(x.legal_mask, y.legal_mask) << i;
    EXPECT_EQ(x.reward, y.reward) << i;
    EXPECT_EQ(x.root_value, y.root_value) << i;
    EXPECT_EQ(x.policy, y.policy) << i;
  }
}

TEST(TrajectoryProtoTest, RoundTripKeepsEveryField) {
  const Trajectory original = TwoSteps();
  v1::Trajectory proto;
  TrajectoryToProto(original, &proto);
  EXPECT_EQ(proto.steps(0).occupancy(), std::string("\x00\x01\x80\xff", 4));
  EXPECT_EQ(proto.steps(0).action(), DROP);
  EXPECT_EQ(proto.targets_version(), 42);
  const absl::StatusOr<Trajectory> back = TrajectoryFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSame(original, *back);
}

TEST(TrajectoryProtoTest, ASegmentKeepsItsContinuationAndContext) {
  Trajectory segment = TwoSteps();
  segment.continues = true;
  segment.context_steps = 1;
  v1::Trajectory proto;
  TrajectoryToProto(segment, &proto);
  const absl::StatusOr<Trajectory> back = TrajectoryFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSame(segment, *back);
  EXPECT_EQ(SampleableSteps(*back), 1);
  // A window's steps are all positions.
  WindowToProto(segment, 0, 2, &proto);
  EXPECT_EQ(proto.context_steps(), 0);
}

TEST(TrajectoryProtoTest, WindowCarriesOnlyTheFirstObservation) {
  v1::Trajectory proto;
  WindowToProto(TwoSteps(), 0, 5, &proto);  // clipped at the end
  ASSERT_EQ(proto.steps_size(), 2);
  EXPECT_EQ(proto.steps(0).occupancy().size(), 4u);
  EXPECT_TRUE(proto.steps(1).occupancy().empty());
  EXPECT_EQ(proto.steps(1).vector_size(), 0);
  EXPECT_EQ(proto.steps(1).root_value(), -0.5f);
  EXPECT_FALSE(TrajectoryFromProto(proto).ok());  // every step needs one
  const absl::StatusOr<Trajectory> window =
      TrajectoryFromProto(proto, "w", ObservationRule::kFirstStepOnly);
  ASSERT_TRUE(window.ok()) << window.status();
  EXPECT_EQ(window->steps[1].reward, -2.0f);

  WindowToProto(TwoSteps(), 1, 1, &proto);
  ASSERT_EQ(proto.steps_size(), 1);
  EXPECT_EQ(proto.steps(0).buffer(), 8);
  EXPECT_EQ(proto.steps(0).occupancy().size(), 4u);
}

// The error for `proto` after `mutate`.
std::string ErrorAfter(void (*mutate)(v1::Trajectory*)) {
  v1::Trajectory proto;
  TrajectoryToProto(TwoSteps(), &proto);
  mutate(&proto);
  const absl::StatusOr<Trajectory> result =
      TrajectoryFromProto(proto, "trajectories[3]");
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(result.status().message());
}

TEST(TrajectoryProtoTest, BadInputNamesTheField) {
  EXPECT_THAT(ErrorAfter([](v1::Trajectory* t) { t->clear_steps(); }),
              HasSubstr("trajectories[3].steps: must not be empty"));
  EXPECT_THAT(ErrorAfter([](v1::Trajectory* t) { t->set_context_steps(2); }),
              HasSubstr("trajectories[3].context_steps: must be in [0, "
                        "steps) = [0, 2), got 2"));
  EXPECT_THAT(ErrorAfter([](v1::Trajectory* t) { t->set_context_steps(-1); }),
              HasSubstr("got -1"));
  EXPECT_THAT(
      ErrorAfter([](v1::Trajectory* t) {
        t->mutable_steps(1)->mutable_policy()->RemoveLast();
      }),
      HasSubstr("trajectories[3].steps[1].policy: must have 3 entries, got 2"));
  EXPECT_THAT(ErrorAfter([](v1::Trajectory* t) {
                t->mutable_steps(1)->set_occupancy("abc");
              }),
              HasSubstr("steps[1].occupancy: size 3 differs from step 0's 4"));
  EXPECT_THAT(ErrorAfter([](v1::Trajectory* t) {
                t->mutable_steps(0)->add_vector(1.0f);
              }),
              HasSubstr("steps[1].vector: size 2 differs from step 0's 3"));
  EXPECT_THAT(ErrorAfter([](v1::Trajectory* t) {
                t->mutable_steps(0)->set_action(static_cast<Action>(3));
              }),
              HasSubstr("steps[0].action: must be 0..2"));
  EXPECT_THAT(ErrorAfter([](v1::Trajectory* t) {
                t->mutable_steps(0)->set_legal_mask(8);
              }),
              HasSubstr("steps[0].legal_mask: must be 0..7, got 8"));
  EXPECT_THAT(ErrorAfter([](v1::Trajectory* t) {
                t->mutable_steps(1)->set_policy(2, -0.5f);
              }),
              HasSubstr("steps[1].policy[2]: must be finite and >= 0"));
  EXPECT_THAT(ErrorAfter([](v1::Trajectory* t) {
                t->mutable_steps(0)->set_root_value(
                    std::numeric_limits<float>::quiet_NaN());
              }),
              HasSubstr("steps[0].root_value: must be finite"));
  EXPECT_THAT(ErrorAfter([](v1::Trajectory* t) {
                t->mutable_steps(1)->clear_occupancy();
                t->mutable_steps(1)->clear_vector();
              }),
              HasSubstr("steps[1]: has no observation"));
  EXPECT_THAT(ErrorAfter([](v1::Trajectory* t) { t->set_drop_backups(-1); }),
              HasSubstr("trajectories[3].drop_backups: must be >= 0, got -1"));
}

}  // namespace
}  // namespace mmapzero::agent
