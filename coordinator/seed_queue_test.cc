#include "coordinator/seed_queue.h"

#include <algorithm>
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
  SeedQueue queue(2, 10, [&](int64_t id, auto&) { recorder.Seed(id); });
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
  SeedQueue queue(1, 2, [&](int64_t id, auto&) { recorder.Seed(id); });
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

// A seed that runs until its stop predicate turns true (or 30 s pass),
// counting how many were stopped.
class StoppableSeeds {
 public:
  void Seed(int64_t job_id, const SeedQueue::StopRequested& stop_requested) {
    {
      absl::MutexLock lock(&mu_);
      started_ids_.push_back(job_id);
    }
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (!stop_requested() && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(5));
    }
    absl::MutexLock lock(&mu_);
    (stop_requested() ? stopped_ : ran_out_).push_back(job_id);
  }
  void AwaitStarted() {
    absl::MutexLock lock(&mu_);
    const auto started = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
      return !started_ids_.empty();
    };
    mu_.Await(absl::Condition(&started));
  }
  std::vector<int64_t> started() {
    absl::MutexLock lock(&mu_);
    return started_ids_;
  }
  std::vector<int64_t> stopped() {
    absl::MutexLock lock(&mu_);
    return stopped_;
  }
  std::vector<int64_t> ran_out() {
    absl::MutexLock lock(&mu_);
    return ran_out_;
  }

 private:
  absl::Mutex mu_;
  std::vector<int64_t> started_ids_ ABSL_GUARDED_BY(mu_);
  std::vector<int64_t> stopped_ ABSL_GUARDED_BY(mu_);
  std::vector<int64_t> ran_out_ ABSL_GUARDED_BY(mu_);
};

// One solver thread running StoppableSeeds, jobs 1 to 3 queued and job 1's
// solve started.
class StoppableSeedQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int64_t id = 1; id <= 3; ++id) ASSERT_TRUE(queue.Add(id).ok());
    seeds.AwaitStarted();
  }

  StoppableSeeds seeds;  // before the queue, whose thread uses it
  SeedQueue queue{1, 10, [this](int64_t id, const auto& stop_requested) {
                    seeds.Seed(id, stop_requested);
                  }};
};

TEST_F(StoppableSeedQueueTest, StopEndsTheRunningSolveAtOnceAndDropsTheQueued) {
  const absl::Time begin = absl::Now();
  queue.Stop();
  EXPECT_LT(absl::Now() - begin, absl::Seconds(5));  // not the seed's 30 s
  EXPECT_THAT(seeds.stopped(), ElementsAre(1));
  EXPECT_EQ(queue.waiting(), 0);
  EXPECT_TRUE(absl::IsUnavailable(queue.Add(9)));
  EXPECT_TRUE(absl::IsUnavailable(queue.Add(9, /*force=*/true)));
  queue.Stop();  // idempotent
}

TEST_F(StoppableSeedQueueTest, CancelStopsThatJobsSolveOrDropsItFromTheQueue) {
  queue.Cancel(2);  // waiting: dropped, never solved
  EXPECT_EQ(queue.waiting(), 1);
  queue.Cancel(1);  // running: stopped; job 3 starts
  queue.Cancel(7);  // unknown: nothing
  for (int i = 0; i < 2000 && seeds.started().size() < 2; ++i) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_THAT(seeds.started(), ElementsAre(1, 3));
  EXPECT_THAT(seeds.stopped(), ElementsAre(1));  // 3 runs on, not asked
  queue.Cancel(3);
  ASSERT_TRUE(queue.AwaitIdle(absl::Seconds(10)));
  EXPECT_THAT(seeds.stopped(), ElementsAre(1, 3));
  EXPECT_TRUE(seeds.ran_out().empty());
}

}  // namespace
}  // namespace mmapzero::coordinator
