// JobWatch driven through its seam: a fake sink instead of a gRPC stream.
#include "coordinator/job_watch.h"

#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "common/workload/proto_io.h"
#include "coordinator/test_dir.h"
#include "gtest/gtest.h"

namespace mmapzero::coordinator {
namespace {

class JobWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CoordinatorOptions options;
    options.data_dir = dir_.path();
    options.seed_solver = "drop-all";
    auto coordinator = Coordinator::Open(options);
    ASSERT_TRUE(coordinator.ok()) << coordinator.status();
    coordinator_ = *std::move(coordinator);
    auto workload =
        ReadWorkload(std::string(MMAPZERO_SOURCE_DIR) + "/examples/small.json");
    ASSERT_TRUE(workload.ok()) << workload.status();
    v1::SubmitJobRequest request;
    *request.mutable_workload() = *workload;
    auto submitted = coordinator_->SubmitJob(request);
    ASSERT_TRUE(submitted.ok()) << submitted.status();
    ASSERT_TRUE(coordinator_->AwaitSeeded(absl::Seconds(30)));
    job_id_ = submitted->job_id();
  }

  // Runs a watch on its own thread; `seen_` collects what it wrote.
  std::jthread StartWatch(absl::Status* result) {
    return std::jthread([this, result] {
      JobWatch watch(coordinator_.get(),
                     JobWatchOptions{.min_interval = absl::Milliseconds(1),
                                     .poll = absl::Milliseconds(20)});
      *result = watch.Run(
          job_id_,
          [this](const v1::JobProgress& progress) {
            absl::MutexLock lock(&mu_);
            seen_.push_back(progress);
            return true;
          },
          [] { return false; });
    });
  }

  void AwaitSeen(size_t n) {
    absl::MutexLock lock(&mu_);
    const auto enough = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return seen_.size() >= n;
    };
    mu_.Await(absl::Condition(&enough));
  }

  TestDir dir_;
  std::unique_ptr<Coordinator> coordinator_;
  std::string job_id_;
  absl::Mutex mu_;
  std::vector<v1::JobProgress> seen_ ABSL_GUARDED_BY(mu_);
};

TEST_F(JobWatchTest, WritesAtOnceThenOnChangeAndEndsOnFinalState) {
  absl::Status result;
  {
    std::jthread watcher = StartWatch(&result);
    AwaitSeen(1);
    v1::CancelJobRequest cancel;
    cancel.set_job_id(job_id_);
    ASSERT_TRUE(coordinator_->CancelJob(cancel).ok());
  }
  EXPECT_TRUE(result.ok()) << result;
  absl::MutexLock lock(&mu_);
  ASSERT_GE(seen_.size(), 2u);
  EXPECT_EQ(seen_.front().job().state(), v1::JOB_STATE_QUEUED);
  EXPECT_EQ(seen_.back().job().state(), v1::JOB_STATE_CANCELLED);
}

TEST_F(JobWatchTest, EndsWhenTheCoordinatorCloses) {
  absl::Status result;
  {
    std::jthread watcher = StartWatch(&result);
    AwaitSeen(1);
    coordinator_->Close();
  }
  EXPECT_TRUE(absl::IsUnavailable(result)) << result;
}

}  // namespace
}  // namespace mmapzero::coordinator
