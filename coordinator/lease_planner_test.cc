// The lease policy on hand-made situations (lease_planner.h).
#include "coordinator/lease_planner.h"

#include <algorithm>
#include <map>

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

TEST(LeasePlannerTest, LearnerStartsNoMoreJobsThanLiveActorSlots) {
  // Three actor slots, three running jobs: job 4 waits queued.
  LeaseRequest request =
      Request(7, kLearner, 4,
              {{1, kRunning}, {2, kRunning}, {3, kRunning}, {4, kQueued}},
              {{1, kLearner, 7, 100}, {2, kLearner, 7, 100},
               {3, kLearner, 7, 100}});
  request.actor_slots = 3;
  LeasePlan plan = PlanLeases(request);
  EXPECT_THAT(plan.jobs, ElementsAre(1, 2, 3));
  EXPECT_THAT(plan.started, IsEmpty());
  request.actor_slots = 4;  // a fourth actor registered
  plan = PlanLeases(request);
  EXPECT_THAT(plan.jobs, ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(plan.started, ElementsAre(4));
  request.actor_slots = 0;  // no actor live: no gate
  EXPECT_THAT(PlanLeases(request).started, ElementsAre(4));
}

TEST(LeasePlannerTest, LoneActorRotatesToAStarvedJobAfterTheRotationPeriod) {
  // Three actors on jobs 1-3, job 4 has none. Worker 7 has held job 1
  // since t=1000.
  LeaseRequest request = Request(
      7, kActor, 1,
      {{1, kRunning}, {2, kRunning}, {3, kRunning}, {4, kRunning}},
      {{1, kActor, 7, 100, 1000}, {2, kActor, 8, 100, 1000},
       {3, kActor, 9, 100, 1000}});
  request.rotation_ms = 60000;
  request.now_ms = 60999;
  EXPECT_THAT(PlanLeases(request).jobs, ElementsAre(1));  // not yet
  request.now_ms = 61000;
  EXPECT_THAT(PlanLeases(request).jobs, ElementsAre(4));
  request.rotation_ms = 0;  // rotation off
  EXPECT_THAT(PlanLeases(request).jobs, ElementsAre(1));
}

TEST(LeasePlannerTest, NoRotationWhileEveryJobHasAnActor) {
  // Two actors on job 1, one on job 2: uneven but nobody starves.
  LeaseRequest request =
      Request(7, kActor, 1, {{1, kRunning}, {2, kRunning}},
              {{1, kActor, 7, 100, 0}, {1, kActor, 8, 100, 0},
               {2, kActor, 9, 100, 0}});
  request.rotation_ms = 60000;
  request.now_ms = 1000000;
  EXPECT_THAT(PlanLeases(request).jobs, ElementsAre(1));
}

TEST(LeasePlannerTest, ActorWithCapacityRotatesOutOfItsLongestHeldJob) {
  LeaseRequest request = Request(
      7, kActor, 2, {{1, kRunning}, {2, kRunning}, {3, kRunning}},
      {{1, kActor, 7, 100, 5000}, {2, kActor, 7, 100, 2000}});
  request.rotation_ms = 1000;
  request.now_ms = 10000;
  EXPECT_THAT(PlanLeases(request).jobs, ElementsAre(1, 3));
}

// Three actors of capacity 1 and four running jobs, planned heartbeat by
// heartbeat as the coordinator does: over a long run every job gets games.
TEST(LeasePlannerTest, RotationGivesEveryJobTurns) {
  const std::vector<PlannerJob> jobs = {
      {1, kRunning}, {2, kRunning}, {3, kRunning}, {4, kRunning}};
  std::vector<Lease> leases;
  std::map<int64_t, int64_t> served_ms;  // job -> actor-milliseconds
  constexpr int64_t kHeartbeatMs = 2000;
  constexpr int64_t kRotationMs = 60000;
  int switches = 0;
  for (int64_t now = 0; now < 20 * kRotationMs; now += kHeartbeatMs) {
    for (const int64_t worker : {7, 8, 9}) {
      LeaseRequest request = Request(worker, kActor, 1, jobs, leases);
      request.rotation_ms = kRotationMs;
      request.now_ms = now;
      const LeasePlan plan = PlanLeases(request);
      ASSERT_EQ(plan.jobs.size(), 1u);
      const auto held = std::find_if(
          leases.begin(), leases.end(),
          [&](const Lease& lease) { return lease.worker_id == worker; });
      if (held != leases.end() && held->job_id == plan.jobs[0]) continue;
      if (held != leases.end()) {
        leases.erase(held);
        ++switches;
      }
      leases.push_back({plan.jobs[0], kActor, worker, now + 10000, now});
    }
    for (const Lease& lease : leases) served_ms[lease.job_id] += kHeartbeatMs;
  }
  // 20 periods: each actor moves about once a period, each job is served
  // about three quarters of the time.
  EXPECT_LE(switches, 3 * 20);
  ASSERT_EQ(served_ms.size(), 4u);
  for (const auto& [job, ms] : served_ms) {
    EXPECT_GE(ms, 20 * kRotationMs / 2) << "job " << job;
  }
}

TEST(LeasePlannerTest, ExcludedJobIsNotTaken) {
  LeaseRequest request = Request(7, kActor, 1, {{1, kRunning}, {2, kRunning}},
                                 {{1, kActor, 7, 100}});
  request.excluded = {1};
  EXPECT_THAT(PlanLeases(request).jobs, ElementsAre(2));
}

}  // namespace
}  // namespace mmapzero::coordinator
