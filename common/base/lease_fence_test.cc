// The lease fence: a claim raises it, writes run only at or above it (and
// raise it), lower epochs are Aborted without running, epoch 0 is
// unfenced, a damaged fence is an error naming its file, and a write holds
// the lock so that a claim waits for it, for a while.
#include "common/base/lease_fence.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero {
namespace {

using ::testing::HasSubstr;

std::string FreshPath(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/lease_fence_test";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/" + name;
  std::filesystem::remove(path + ".fence");
  return path;
}

TEST(LeaseFenceTest, ClaimsRiseAndOlderEpochsAreRefused) {
  const std::string path = FreshPath("rise");
  EXPECT_EQ(*ReadLeaseFence(path), 0);
  ASSERT_TRUE(ClaimLeaseFence(path, 2).ok());
  EXPECT_EQ(*ReadLeaseFence(path), 2);
  ASSERT_TRUE(ClaimLeaseFence(path, 2).ok());  // the same holder again

  int writes = 0;
  const absl::Status old = WriteUnderLeaseFence(path, 1, [&] {
    ++writes;
    return absl::OkStatus();
  });
  EXPECT_EQ(old.code(), absl::StatusCode::kAborted);
  EXPECT_THAT(old.message(), HasSubstr("lease epoch 2"));
  EXPECT_THAT(old.message(), HasSubstr("holds epoch 1"));
  EXPECT_EQ(writes, 0);
  EXPECT_EQ(ClaimLeaseFence(path, 1).code(), absl::StatusCode::kAborted);

  ASSERT_TRUE(WriteUnderLeaseFence(path, 2, [&] {
                ++writes;
                return absl::OkStatus();
              }).ok());
  EXPECT_EQ(writes, 1);
  // A write's own error comes back as it is.
  EXPECT_EQ(WriteUnderLeaseFence(path, 3,
                                 [] { return absl::DataLossError("disk"); })
                .code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(*ReadLeaseFence(path), 3);
}

TEST(LeaseFenceTest, EpochZeroIsUnfenced) {
  const std::string path = FreshPath("zero");
  ASSERT_TRUE(ClaimLeaseFence(path, 5).ok());
  bool wrote = false;
  EXPECT_TRUE(WriteUnderLeaseFence(path, 0, [&] {
                wrote = true;
                return absl::OkStatus();
              }).ok());
  EXPECT_TRUE(wrote);
  EXPECT_TRUE(ClaimLeaseFence(FreshPath("zero-new"), 0).ok());
  EXPECT_FALSE(std::filesystem::exists(FreshPath("zero-new") + ".fence"));
}

TEST(LeaseFenceTest, DamagedFenceIsAnErrorNamingTheFile) {
  const std::string path = FreshPath("damaged");
  std::ofstream(path + ".fence") << "twelve\n";
  const absl::Status status = ClaimLeaseFence(path, 3);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(), HasSubstr(path + ".fence"));
  EXPECT_THAT(status.message(), HasSubstr("twelve"));
}

TEST(LeaseFenceTest, AClaimWaitsForAWriteInProgress) {
  const std::string path = FreshPath("lock");
  absl::Notification writing;
  absl::Notification release;
  std::atomic<bool> claimed{false};
  std::thread writer([&] {
    EXPECT_TRUE(WriteUnderLeaseFence(path, 1, [&] {
                  writing.Notify();
                  release.WaitForNotification();
                  // The claim below has not got past the lock.
                  EXPECT_FALSE(claimed.load());
                  return absl::OkStatus();
                }).ok());
  });
  writing.WaitForNotification();
  std::thread claimer([&] {
    EXPECT_TRUE(ClaimLeaseFence(path, 2).ok());
    claimed = true;
  });
  absl::SleepFor(absl::Milliseconds(100));
  EXPECT_FALSE(claimed.load());
  release.Notify();
  writer.join();
  claimer.join();
  EXPECT_TRUE(claimed.load());
  EXPECT_EQ(*ReadLeaseFence(path), 2);
}

// A holder paused in the middle of a save keeps the lock: a claim gives up
// after its wait with Unavailable (the learner tries again later) instead
// of blocking its thread.
TEST(LeaseFenceTest, AClaimGivesUpOnALockHeldTooLong) {
  const std::string path = FreshPath("held");
  absl::Notification writing;
  absl::Notification release;
  std::thread writer([&] {
    EXPECT_TRUE(WriteUnderLeaseFence(path, 1, [&] {
                  writing.Notify();
                  release.WaitForNotification();
                  return absl::OkStatus();
                }).ok());
  });
  writing.WaitForNotification();
  const absl::Status claim =
      ClaimLeaseFence(path, 2, absl::Milliseconds(100));
  EXPECT_EQ(claim.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(claim.message(), HasSubstr("stayed locked"));
  release.Notify();
  writer.join();
  EXPECT_TRUE(ClaimLeaseFence(path, 2, absl::Milliseconds(100)).ok());
}

}  // namespace
}  // namespace mmapzero
