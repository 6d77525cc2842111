// Local cluster roles: names round-trip, service names map to their role
// (numbered ones only with a number), start order is the roles' order then
// the number, and each worker role is proto/worker.proto's.
#include "cli/local_role.h"

#include <gtest/gtest.h>

namespace mmapzero::cli {
namespace {

TEST(LocalRoleTest, NamesRoundTripAndServicesMapToTheirRole) {
  for (const LocalRole role : LocalRoles()) {
    EXPECT_EQ(RoleNamed(RoleName(role)), role) << RoleName(role);
  }
  EXPECT_EQ(RoleNamed("prometheus"), LocalRole::kPrometheus);
  EXPECT_EQ(RoleNamed("cache"), std::nullopt);
  EXPECT_EQ(RoleOfService("actor-3"), LocalRole::kActor);
  EXPECT_EQ(RoleOfService("reanalyse-0"), LocalRole::kReanalyse);
  EXPECT_EQ(RoleOfService("learner"), LocalRole::kLearner);
  EXPECT_EQ(RoleOfService("learner-1"), std::nullopt);  // not numbered
  EXPECT_EQ(RoleOfService("actor-x"), std::nullopt);
  EXPECT_EQ(RoleOfService("actors"), std::nullopt);
  EXPECT_EQ(ProgramOf(LocalRole::kReplay), "mmapzero-replay");
  EXPECT_EQ(ProgramOf(LocalRole::kPrometheus), "prometheus");
}

TEST(LocalRoleTest, StartOrderIsTheRolesThenTheirNumbers) {
  EXPECT_LT(StartOrder("coordinator"), StartOrder("replay"));
  EXPECT_LT(StartOrder("replay"), StartOrder("learner"));
  EXPECT_LT(StartOrder("learner"), StartOrder("actor-0"));
  EXPECT_LT(StartOrder("actor-2"), StartOrder("actor-10"));
  EXPECT_LT(StartOrder("actor-10"), StartOrder("reanalyse-0"));
}

TEST(LocalRoleTest, WorkerRolesAreTheProtocolsAndOnlyThoseServeOrCallOut) {
  EXPECT_EQ(WorkerRoleOf(LocalRole::kCoordinator), std::nullopt);
  EXPECT_EQ(WorkerRoleOf(LocalRole::kPrometheus), std::nullopt);
  EXPECT_EQ(WorkerRoleOf(LocalRole::kActor), v1::WORKER_ROLE_ACTOR);
  EXPECT_EQ(WorkerRoleOf(LocalRole::kLearner), v1::WORKER_ROLE_LEARNER);
  EXPECT_EQ(WorkerRoleOf(LocalRole::kReplay), v1::WORKER_ROLE_REPLAY);
  EXPECT_EQ(WorkerRoleOf(LocalRole::kReanalyse), v1::WORKER_ROLE_REANALYSE);
  EXPECT_TRUE(ServesGrpc(LocalRole::kLearner));
  EXPECT_FALSE(ServesGrpc(LocalRole::kActor));
  EXPECT_TRUE(Numbered(LocalRole::kReanalyse));
  EXPECT_FALSE(Numbered(LocalRole::kCoordinator));
}

}  // namespace
}  // namespace mmapzero::cli
