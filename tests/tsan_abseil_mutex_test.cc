// The ThreadSanitizer build's view of Debian's absl::Mutex
// (tests/tsan_abseil_mutex.cc): every way our code hands data from one
// thread to another through Abseil is seen as synchronisation, and a real
// race is still reported. Built only with -DMMAPZERO_TSAN=ON.

#include <cstdlib>
#include <string>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace mmapzero {
namespace {

TEST(TsanAbseilMutexTest, CounterUnderMutexLockIsNoRace) {
  absl::Mutex mu;
  int counter = 0;
  auto add = [&] {
    for (int i = 0; i < 1000; ++i) {
      absl::MutexLock lock(&mu);
      ++counter;
    }
  };
  std::thread a(add), b(add);
  a.join();
  b.join();
  absl::MutexLock lock(&mu);
  EXPECT_EQ(counter, 2000);
}

TEST(TsanAbseilMutexTest, ReaderLocksSeeTheWriter) {
  absl::Mutex mu;
  int value = 0;
  std::thread writer([&] {
    absl::SleepFor(absl::Milliseconds(2));
    absl::MutexLock lock(&mu);
    value = 1;
  });
  for (bool seen = false; !seen;) {
    absl::ReaderMutexLock lock(&mu);
    seen = value == 1;
  }
  for (bool seen = false; !seen;) {
    if (!mu.ReaderTryLock()) continue;
    seen = value == 1;
    mu.ReaderUnlock();
  }
  writer.join();
}

TEST(TsanAbseilMutexTest, WaitsHandOverWhatTheOtherThreadWrote) {
  absl::Mutex mu;
  absl::CondVar changed;
  int stage = 0;
  std::string payload;
  std::thread other([&] {
    for (int next = 1; next <= 4; ++next) {
      absl::SleepFor(absl::Milliseconds(2));
      absl::MutexLock lock(&mu);
      payload += "x";
      stage = next;
      changed.SignalAll();
    }
  });
  {
    absl::MutexLock lock(&mu);
    while (stage < 1) changed.Wait(&mu);
    payload += "a";
    mu.Await(absl::Condition(
        +[](int* value) { return *value >= 2; }, &stage));
    payload += "b";
    ASSERT_TRUE(mu.AwaitWithTimeout(
        absl::Condition(
            +[](int* value) { return *value >= 3; }, &stage),
        absl::Seconds(10)));
    payload += "c";
  }
  // Held on return either way; the result says whether the condition was.
  const bool reached = mu.LockWhenWithTimeout(
      absl::Condition(
          +[](int* value) { return *value >= 4; }, &stage),
      absl::Seconds(10));
  payload += "d";
  mu.Unlock();
  EXPECT_TRUE(reached);
  other.join();
  EXPECT_EQ(payload.size(), 8u);
}

TEST(TsanAbseilMutexTest, NotificationHandsOverWhatTheNotifierWrote) {
  absl::Notification done;
  int value = 0;
  std::thread notifier([&] {
    value = 7;
    done.Notify();
  });
  // Often already notified: the fast path reads only the flag.
  absl::SleepFor(absl::Milliseconds(5));
  done.WaitForNotification();
  EXPECT_EQ(++value, 8);
  notifier.join();

  absl::Notification polled;
  int other = 0;
  std::thread poller_notifier([&] {
    other = 3;
    polled.Notify();
  });
  while (!polled.HasBeenNotified()) absl::SleepFor(absl::Milliseconds(1));
  EXPECT_EQ(++other, 4);
  poller_notifier.join();
}

// The control: the same counter without the lock is reported (exit code 66,
// TSan's default), so the tests above pass because the locks are seen, not
// because nothing is.
TEST(TsanAbseilMutexDeathTest, UnlockedCounterIsReported) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        static int counter = 0;
        std::thread a([] { ++counter; });
        ++counter;
        a.join();
        std::exit(0);
      },
      testing::ExitedWithCode(66), "ThreadSanitizer: data race");
}

}  // namespace
}  // namespace mmapzero
