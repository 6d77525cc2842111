#include "coordinator/seed_queue.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::coordinator {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Seeds that record their order and how many ran at once, and wait for
// `release` before they end.
class Recorder {
 public:
  void Seed(int64_t job_id) {
    {
      absl::MutexLock lock(&mu_);
      started_.push_back(job_id);
      ++running_;
      peak_ = std::max(peak_, running_);
    }
    release_.WaitForNotification();
    absl::MutexLock lock(&mu_);
    --running_;
  }
  void Release() { release_.Notify(); }
  bool AwaitStarted(int n) {
    absl::MutexLock lock(&mu_);
    const auto enough = [this, n]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
      return static_cast<int>(started_.size()) >= n;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), absl::Seconds(10));
  }
  std::vector<int64_t> started() {
    absl::MutexLock lock(&mu_);
    return started_;
  }
  int peak() {
    absl::MutexLock lock(&mu_);
    return peak_;
  }

 private:
  absl::Notification release_;
  absl::Mutex mu_;
  std::vector<int64_t> started_ ABSL_GUARDED_BY(mu_);
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  int peak_ ABSL_GUARDED_BY(mu_) = 0;
};

TEST(SeedQueueTest, RunsAtMostItsSolversAtOnceOldestFirst) {
  Recorder recorder;
  SeedQueue queue(2, 10, [&](int64_t id) { recorder.Seed(id); });
  for (int64_t id = 1; id <= 5; ++id) ASSERT_TRUE(queue.Add(id).ok());
  ASSERT_TRUE(recorder.AwaitStarted(2));
  absl::SleepFor(absl::Milliseconds(50));  // a third would have started
  EXPECT_EQ(recorder.started().size(), 2u);
  EXPECT_EQ(queue.running(), 2);
  EXPECT_EQ(queue.waiting(), 3);
  recorder.Release();
  ASSERT_TRUE(queue.AwaitIdle(absl::Seconds(10)));
  EXPECT_EQ(recorder.peak(), 2);
  std::vector<int64_t> order = recorder.started();
  ASSERT_EQ(order.size(), 5u);
  // Two threads: the first two start in either order, the rest after.
  std::sort(order.begin(), order.begin() + 2);
  EXPECT_THAT(order, ElementsAre(1, 2, 3, 4, 5));
}

TEST(SeedQueueTest, RefusesBeyondItsWaitingRoomUnlessForced) {
  Recorder recorder;
  SeedQueue queue(1, 2, [&](int64_t id) { recorder.Seed(id); });
  ASSERT_TRUE(queue.Add(1).ok());
  ASSERT_TRUE(recorder.AwaitStarted(1));  // running, not waiting
  EXPECT_TRUE(queue.Add(2).ok());
  EXPECT_TRUE(queue.Add(3).ok());
  const absl::Status full = queue.CheckRoom();
  EXPECT_TRUE(absl::IsResourceExhausted(full)) << full;
  EXPECT_THAT(
      std::string(full.message()),
      HasSubstr("2 submitted jobs wait for their seed solve (at most 2)"));
  EXPECT_TRUE(absl::IsResourceExhausted(queue.Add(4)));
  // Jobs that exist already (a restart) are queued whatever the room.
  EXPECT_TRUE(queue.Add(4, /*force=*/true).ok());
  EXPECT_EQ(queue.waiting(), 3);
  recorder.Release();
  ASSERT_TRUE(queue.AwaitIdle(absl::Seconds(10)));
  EXPECT_THAT(recorder.started(), ElementsAre(1, 2, 3, 4));
}

TEST(SeedQueueTest, StopLetsTheRunningSolveEndAndDropsTheQueued) {
  std::atomic<int> finished = 0;
  absl::Notification started;
  SeedQueue queue(1, 10, [&](int64_t) {
    started.Notify();
    absl::SleepFor(absl::Milliseconds(200));
    ++finished;
  });
  for (int64_t id = 1; id <= 3; ++id) ASSERT_TRUE(queue.Add(id).ok());
  started.WaitForNotification();
  queue.Stop();
  EXPECT_EQ(finished.load(), 1);
  EXPECT_EQ(queue.waiting(), 0);
  EXPECT_TRUE(absl::IsUnavailable(queue.Add(9)));
  EXPECT_TRUE(absl::IsUnavailable(queue.Add(9, /*force=*/true)));
  queue.Stop();  // idempotent
}

}  // namespace
}  // namespace mmapzero::coordinator
