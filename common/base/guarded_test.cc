// Guarded<T>: copies, reads and updates under its lock, waits that end on
// an update or at the timeout, and no lost update between threads.
#include "common/base/guarded.h"

#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace mmapzero {
namespace {

struct Progress {
  int step = 0;
  std::string error;
  bool stopped = false;
};

TEST(GuardedTest, GetCopiesAndUpdateChangesAndReturns) {
  Guarded<Progress> progress;
  EXPECT_EQ(progress.Get().step, 0);
  const int returned = progress.Update([](Progress& p) {
    p.step = 7;
    p.error = "late";
    return p.step * 2;
  });
  EXPECT_EQ(returned, 14);
  const Progress copy = progress.Get();
  EXPECT_EQ(copy.step, 7);
  EXPECT_EQ(copy.error, "late");
  EXPECT_EQ(progress.Read([](const Progress& p) { return p.error.size(); }),
            4u);
}

TEST(GuardedTest, StartsFromTheGivenValue) {
  const Guarded<int> value(41);
  EXPECT_EQ(value.Get(), 41);
}

TEST(GuardedTest, UpdatesFromManyThreadsAreNotLost) {
  Guarded<int> counter;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&counter] {
      for (int i = 0; i < 10000; ++i) counter.Update([](int& c) { ++c; });
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(counter.Get(), 40000);
}

TEST(GuardedTest, AwaitEndsWhenAnUpdateMakesItTrueOrAtTheTimeout) {
  Guarded<Progress> progress;
  const auto stopped = [](const Progress& p) { return p.stopped; };
  EXPECT_FALSE(progress.AwaitWithTimeout(stopped, absl::Milliseconds(10)));
  std::thread stopper([&progress] {
    absl::SleepFor(absl::Milliseconds(20));
    progress.Update([](Progress& p) { p.stopped = true; });
  });
  EXPECT_TRUE(progress.AwaitWithTimeout(stopped, absl::Seconds(30)));
  stopper.join();
}

}  // namespace
}  // namespace mmapzero
