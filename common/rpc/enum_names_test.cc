#include "common/rpc/enum_names.h"

#include "gtest/gtest.h"

namespace mmapzero::rpc {
namespace {

TEST(EnumNamesTest, ShortLowerCaseNames) {
  EXPECT_EQ(JobStateName(v1::JOB_STATE_RUNNING), "running");
  EXPECT_EQ(JobStateName(v1::JOB_STATE_QUEUED), "queued");
  EXPECT_EQ(WorkerRoleName(v1::WORKER_ROLE_ACTOR), "actor");
  EXPECT_EQ(WorkerRoleName(v1::WORKER_ROLE_REANALYSE), "reanalyse");
}

TEST(EnumNamesTest, NumbersTheEnumDoesNotName) {
  EXPECT_EQ(JobStateName(static_cast<v1::JobState>(99)), "state-99");
  EXPECT_EQ(WorkerRoleName(static_cast<v1::WorkerRole>(42)), "role-42");
}

}  // namespace
}  // namespace mmapzero::rpc
