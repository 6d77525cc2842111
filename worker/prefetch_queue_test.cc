// The prefetch queue keeps the learner fed: it fills up to its capacity
// while nobody asks, hands batches out without waiting, asks the replay
// again after "not ready" and backs off while it is away.
#include "worker/prefetch_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"

namespace mmapzero::worker {
namespace {

using ::testing::HasSubstr;

// A batch of one position whose id counts the sampler's calls.
agent::Batch Numbered(int64_t n) {
  return {{n, 0, std::make_shared<agent::Trajectory>()}};
}

TEST(PrefetchQueueTest, FillsToCapacityAndHandsOutWithoutWaiting) {
  std::atomic<int64_t> calls{0};
  PrefetchQueue queue(
      [&calls]() -> absl::StatusOr<agent::Batch> { return Numbered(calls++); },
      {.capacity = 3});
  ASSERT_TRUE(queue.AwaitQueued(3, absl::Seconds(10)));
  // Full: the thread waits for room instead of sampling more.
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_EQ(calls.load(), 3);
  EXPECT_EQ(queue.stats().queued, 3);
  for (int64_t n = 0; n < 3; ++n) {
    absl::StatusOr<agent::Batch> batch = queue.Next(absl::ZeroDuration());
    ASSERT_TRUE(batch.ok()) << batch.status();
    EXPECT_EQ((*batch)[0].id, n);  // in order
  }
  ASSERT_TRUE(queue.AwaitQueued(3, absl::Seconds(10)));  // refilled
  EXPECT_EQ(queue.stats().fetched, 6);
}

TEST(PrefetchQueueTest, WaitsWhileNotReadyAndBacksOffWhileAway) {
  absl::Mutex mu;
  absl::Status answer = absl::FailedPreconditionError("table: 0 positions");
  std::atomic<int> calls{0};
  PrefetchQueue queue(
      [&]() -> absl::StatusOr<agent::Batch> {
        ++calls;
        absl::MutexLock lock(&mu);
        if (!answer.ok()) return answer;
        return Numbered(0);
      },
      {.capacity = 2,
       .not_ready_wait = absl::Milliseconds(5),
       .backoff_initial = absl::Milliseconds(5),
       .backoff_cap = absl::Milliseconds(20)});
  absl::StatusOr<agent::Batch> none = queue.Next(absl::Milliseconds(50));
  EXPECT_EQ(none.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(std::string(none.status().message()),
              HasSubstr("table: 0 positions"));
  EXPECT_GT(queue.stats().not_ready, 1);
  EXPECT_EQ(queue.stats().failures, 0);
  {
    absl::MutexLock lock(&mu);
    answer = absl::UnavailableError("replay away");
  }
  absl::SleepFor(absl::Milliseconds(60));
  EXPECT_GT(queue.stats().failures, 0);
  EXPECT_THAT(queue.stats().last_error, HasSubstr("replay away"));
  {
    absl::MutexLock lock(&mu);
    answer = absl::OkStatus();
  }
  EXPECT_TRUE(queue.Next(absl::Seconds(10)).ok());
  EXPECT_EQ(queue.stats().last_error, "");
  queue.Stop();
  const int after_stop = calls.load();
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_EQ(calls.load(), after_stop);
}

}  // namespace
}  // namespace mmapzero::worker
