// The lease policy on hand-made situations (lease_planner.h).
#include "coordinator/lease_planner.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::coordinator {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr auto kQueued = v1::JOB_STATE_QUEUED;
constexpr auto kRunning = v1::JOB_STATE_RUNNING;
constexpr auto kDone = v1::JOB_STATE_DONE;
constexpr auto kLearner = v1::WORKER_ROLE_LEARNER;
constexpr auto kActor = v1::WORKER_ROLE_ACTOR;

LeaseRequest Request(int64_t worker, v1::WorkerRole role, int32_t capacity,
                     std::vector<PlannerJob> jobs,
                     std::vector<Lease> leases = {}) {
  LeaseRequest request;
  request.worker_id = worker;
  request.role = role;
  request.capacity = capacity;
  request.jobs = std::move(jobs);
  request.live_leases = std::move(leases);
  return request;
}

TEST(LeasePlannerTest, LearnerTakesOldestQueuedJobAndStartsIt) {
  const LeasePlan plan = PlanLeases(
      Request(7, kLearner, 1, {{2, kQueued}, {1, kQueued}, {3, kDone}}));
  EXPECT_THAT(plan.jobs, ElementsAre(1));
  EXPECT_THAT(plan.started, ElementsAre(1));
}

TEST(LeasePlannerTest, LearnerKeepsItsLeaseAndLeavesOthersAlone) {
  const LeasePlan plan = PlanLeases(
      Request(7, kLearner, 2, {{1, kRunning}, {2, kRunning}, {3, kQueued}},
              {{1, kLearner, 7, 100}, {2, kLearner, 8, 100}}));
  // Keeps job 1; job 2 is worker 8's; fills its second slot with job 3.
  EXPECT_THAT(plan.jobs, ElementsAre(1, 3));
  EXPECT_THAT(plan.started, ElementsAre(3));
}

TEST(LeasePlannerTest, LearnerTakesOverRunningJobBeforeStartingQueuedOne) {
  // Job 2 runs but its learner's lease expired (it is not live any more).
  const LeasePlan plan =
      PlanLeases(Request(7, kLearner, 1, {{1, kQueued}, {2, kRunning}}));
  EXPECT_THAT(plan.jobs, ElementsAre(2));
  EXPECT_THAT(plan.started, IsEmpty());
}

TEST(LeasePlannerTest, MaxRunningJobsKeepsJobsQueued) {
  LeaseRequest request = Request(7, kLearner, 2, {{1, kRunning}, {2, kQueued}},
                                 {{1, kLearner, 8, 100}});
  request.max_running_jobs = 1;
  const LeasePlan plan = PlanLeases(request);
  EXPECT_THAT(plan.jobs, IsEmpty());
  EXPECT_THAT(plan.started, IsEmpty());
}

TEST(LeasePlannerTest, ActorsSpreadOverRunningJobsOnly) {
  const LeasePlan plan = PlanLeases(Request(
      7, kActor, 1, {{1, kRunning}, {2, kRunning}, {3, kQueued}},
      {{1, kActor, 8, 100}, {1, kActor, 9, 100}, {2, kActor, 10, 100}}));
  EXPECT_THAT(plan.jobs, ElementsAre(2));  // the least crowded running job
  EXPECT_THAT(plan.started, IsEmpty());
}

TEST(LeasePlannerTest, ActorWithCapacityServesSeveralJobsOncePerJob) {
  const LeasePlan plan =
      PlanLeases(Request(7, kActor, 4, {{1, kRunning}, {2, kRunning}}));
  EXPECT_THAT(plan.jobs, ElementsAre(1, 2));
}

TEST(LeasePlannerTest, ActorMovesFromCrowdedJobToNewJob) {
  // Three actors on job 1, none on the newly started job 2: worker 7 moves.
  const LeasePlan plan = PlanLeases(
      Request(7, kActor, 1, {{1, kRunning}, {2, kRunning}},
              {{1, kActor, 7, 100}, {1, kActor, 8, 100}, {1, kActor, 9, 100}}));
  EXPECT_THAT(plan.jobs, ElementsAre(2));
}

TEST(LeasePlannerTest, ActorStaysWhenTheSpreadIsEven) {
  const LeasePlan plan = PlanLeases(
      Request(7, kActor, 1, {{1, kRunning}, {2, kRunning}},
              {{1, kActor, 7, 100}, {1, kActor, 8, 100}, {2, kActor, 9, 100}}));
  EXPECT_THAT(plan.jobs, ElementsAre(1));
}

TEST(LeasePlannerTest, ExcludedJobIsNotTaken) {
  LeaseRequest request = Request(7, kActor, 1, {{1, kRunning}, {2, kRunning}},
                                 {{1, kActor, 7, 100}});
  request.excluded = {1};
  EXPECT_THAT(PlanLeases(request).jobs, ElementsAre(2));
}

}  // namespace
}  // namespace mmapzero::coordinator
