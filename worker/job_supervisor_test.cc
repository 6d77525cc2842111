// JobSupervisor against a real coordinator (test_cluster.h): a job whose
// thread throws (LibTorch reports errors as exceptions) is stopped, not
// restarted, and reported as the job's fatal error, so the coordinator
// takes this worker off it; the worker process and its other work go on.
// A start refused as Unavailable is tried again; one fenced out (Aborted)
// is neither reported nor retried.
#include "worker/job_supervisor.h"

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>

#include "common/service/crash_guard.h"
#include "gtest/gtest.h"
#include "worker/test_cluster.h"

namespace mmapzero::worker {
namespace {

class ThrowingJob final : public SupervisedJob {
 public:
  explicit ThrowingJob(const std::string& job_id) {
    thread_ = std::jthread([this, job_id] {
      RunGuarded(job_id, [] {
        throw std::runtime_error("shape mismatch in the network's input");
      });
    });
  }
  ~ThrowingJob() override { Stop(absl::ZeroDuration()); }
  void Update(const v1::Assignment&) override {}
  void Stop(absl::Duration) override {
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::jthread thread_;
};

TEST(JobSupervisorTest, AJobThatThrowsIsStoppedReportedAndNotRestarted) {
  TestCluster cluster("drop-all");
  const std::string job = cluster.SubmitRunningJob(TinyConfig());
  absl::StatusOr<std::unique_ptr<worker::WorkerSession>> session =
      worker::WorkerSession::Start(
          {.coordinator = cluster.coordinator_address(),
           .role = v1::WORKER_ROLE_ACTOR,
           .address = "",
           .capacity = 1,
           .name = "throwing-actor",
           .rpc_deadline = absl::Seconds(5)});
  ASSERT_TRUE(session.ok()) << session.status();
  std::atomic<int> starts{0};
  JobSupervisor supervisor(
      session->get(), v1::WORKER_ROLE_ACTOR,
      [&](const v1::Assignment& assignment)
          -> absl::StatusOr<std::shared_ptr<SupervisedJob>> {
        ++starts;
        return std::make_shared<ThrowingJob>(assignment.job_id());
      });
  ASSERT_TRUE(WaitFor([&] { return starts.load() == 1; }));
  ASSERT_TRUE(WaitFor([&] { return supervisor.JobIds().empty(); }));
  // The fatal error reached the coordinator: this actor's lease is gone.
  ASSERT_TRUE(WaitFor([&] { return cluster.Job(job).actors() == 0; }));
  absl::SleepFor(absl::Seconds(1));
  EXPECT_EQ(starts.load(), 1);
  EXPECT_EQ(cluster.Job(job).state(), v1::JOB_STATE_RUNNING);  // others go on
  supervisor.Stop(absl::ZeroDuration());
}

// A job that idles until stopped.
class IdleJob final : public SupervisedJob {
 public:
  void Update(const v1::Assignment&) override {}
  void Stop(absl::Duration) override {}
};

// A running job of a real coordinator and an actor session that holds it.
class JobSupervisorStartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    job_ = cluster_.SubmitRunningJob(TinyConfig());
    auto session = worker::WorkerSession::Start(
        {.coordinator = cluster_.coordinator_address(),
         .role = v1::WORKER_ROLE_ACTOR,
         .address = "",
         .capacity = 1,
         .name = "supervised-actor",
         .rpc_deadline = absl::Seconds(5)});
    ASSERT_TRUE(session.ok()) << session.status();
    session_ = *std::move(session);
  }

  TestCluster cluster_{"drop-all"};
  std::string job_;
  std::unique_ptr<worker::WorkerSession> session_;
};

// Unavailable from the factory (a busy checkpoint fence) is no failure: the
// job is asked for again and starts once the factory can.
TEST_F(JobSupervisorStartTest, AnUnavailableStartIsTriedAgain) {
  std::atomic<int> tries{0};
  JobSupervisor supervisor(
      session_.get(), v1::WORKER_ROLE_ACTOR,
      [&](const v1::Assignment&)
          -> absl::StatusOr<std::shared_ptr<SupervisedJob>> {
        if (++tries < 3) return absl::UnavailableError("fence busy");
        return std::make_shared<IdleJob>();
      });
  ASSERT_TRUE(WaitFor([&] { return supervisor.JobIds().size() == 1; }));
  EXPECT_EQ(tries.load(), 3);
  EXPECT_EQ(cluster_.Job(job_).actors(), 1);  // its lease kept throughout
  supervisor.Stop(absl::ZeroDuration());
}

// Aborted from the factory (a newer lease epoch holds the job's state) is
// no failure either: nothing is reported, and the job is not started again
// under the same epoch.
TEST_F(JobSupervisorStartTest, AFencedStartIsNeitherReportedNorRetried) {
  std::atomic<int> tries{0};
  JobSupervisor supervisor(
      session_.get(), v1::WORKER_ROLE_ACTOR,
      [&](const v1::Assignment&)
          -> absl::StatusOr<std::shared_ptr<SupervisedJob>> {
        ++tries;
        return absl::AbortedError("fenced");
      });
  ASSERT_TRUE(WaitFor([&] { return tries.load() == 1; }));
  absl::SleepFor(absl::Seconds(2));  // several rounds and heartbeats
  EXPECT_EQ(tries.load(), 1);
  EXPECT_TRUE(supervisor.JobIds().empty());
  EXPECT_EQ(cluster_.Job(job_).state(), v1::JOB_STATE_RUNNING);
  EXPECT_EQ(cluster_.Job(job_).error(), "");
  supervisor.Stop(absl::ZeroDuration());
}

TEST(CrashGuardTest, ReturnsWhatEscapedAndNothingOtherwise) {
  EXPECT_EQ(service::RunCatchingCrash("job-1", [] {}), "");
  EXPECT_EQ(service::RunCatchingCrash(
                "job-1", [] { throw std::runtime_error("out of memory"); }),
            "uncaught exception: out of memory");
  EXPECT_EQ(service::RunCatchingCrash("job-1", [] { throw 7; }),
            "uncaught exception of an unknown type");
  const std::string long_text(10000, 'x');
  EXPECT_EQ(service::RunCatchingCrash(
                "job-1", [&] { throw std::runtime_error(long_text); })
                .size(),
            2000u);
}

}  // namespace
}  // namespace mmapzero::worker
