#include "replay/rate_limiter.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::replay {
namespace {

using ::testing::HasSubstr;

TEST(RateLimiterTest, HoldsBackUntilMinPositionsThenKeepsTheRatio) {
  RateLimiter limiter(
      {.min_positions = 10, .samples_per_insert = 2, .slack = 3});
  limiter.OnInsert(9);
  EXPECT_THAT(limiter.CanSample(1, 9).message(),
              HasSubstr("holds 9 positions, training starts at 10"));
  limiter.OnInsert(1);
  // Allowed: 2 x 10 + 3 = 23 windows.
  EXPECT_TRUE(limiter.CanSample(23, 10).ok());
  limiter.OnSample(20);
  EXPECT_TRUE(limiter.CanSample(3, 10).ok());
  const absl::Status held = limiter.CanSample(4, 10);
  EXPECT_EQ(held.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(held.message(), HasSubstr("rate limited: 20 windows sampled "
                                        "for 10 positions inserted"));
  limiter.OnInsert(1);  // 2 more allowed
  EXPECT_TRUE(limiter.CanSample(5, 11).ok());
}

TEST(RateLimiterTest, RatioZeroOnlyWaitsForMinPositions) {
  RateLimiter limiter({.min_positions = 1, .samples_per_insert = 0});
  limiter.OnInsert(1);
  limiter.OnSample(1000000);
  EXPECT_TRUE(limiter.CanSample(1000, 1).ok());
  EXPECT_FALSE(limiter.CanSample(1, 0).ok());
}

}  // namespace
}  // namespace mmapzero::replay
