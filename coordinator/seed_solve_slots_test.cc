// Seed-solve slots: up to N at once, the next waits and gets a slot when
// one frees, gives up after its wait (ResourceExhausted naming the load)
// or as soon as its caller has gone (Cancelled).
#include "coordinator/seed_solve_slots.h"

#include <atomic>
#include <thread>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::coordinator {
namespace {

using ::testing::HasSubstr;

TEST(SeedSolveSlotsTest, BoundsConcurrentSolvesAndQueuesTheRest) {
  SeedSolveSlots slots(2);
  auto a = slots.Acquire(absl::ZeroDuration(), nullptr);
  auto b = slots.Acquire(absl::ZeroDuration(), nullptr);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(slots.in_use(), 2);

  const auto busy = slots.Acquire(absl::Milliseconds(120), nullptr);
  EXPECT_EQ(busy.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(busy.status().message(), HasSubstr("2 submissions"));
  EXPECT_EQ(slots.waiting(), 0);

  const auto gone = slots.Acquire(absl::Seconds(30), [] { return true; });
  EXPECT_EQ(gone.status().code(), absl::StatusCode::kCancelled);

  // A waiter gets the slot that frees.
  std::atomic<bool> got{false};
  std::thread waiter([&] {
    auto c = slots.Acquire(absl::Seconds(30), [] { return false; });
    EXPECT_TRUE(c.ok()) << c.status();
    got = true;
  });
  while (slots.waiting() == 0) absl::SleepFor(absl::Milliseconds(1));
  absl::SleepFor(absl::Milliseconds(60));
  EXPECT_FALSE(got.load());
  { auto release = *std::move(a); }
  waiter.join();
  EXPECT_TRUE(got.load());
  EXPECT_EQ(slots.in_use(), 1);  // b; the waiter's slot went with it
}

TEST(SeedSolveSlotsTest, AtLeastOneSlot) {
  SeedSolveSlots slots(0);
  auto a = slots.Acquire(absl::ZeroDuration(), nullptr);
  EXPECT_TRUE(a.ok());
  EXPECT_FALSE(slots.Acquire(absl::ZeroDuration(), nullptr).ok());
}

}  // namespace
}  // namespace mmapzero::coordinator
