// The lease key: made once, kept across restarts, private to its owner,
// and a damaged file refused rather than replaced.
#include "coordinator/lease_key.h"

#include <sys/stat.h>

#include <string>

#include "common/base/atomic_file.h"
#include "common/base/read_file.h"
#include "common/security/lease_ticket.h"
#include "coordinator/test_dir.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::coordinator {
namespace {

using ::testing::HasSubstr;

TEST(LeaseKeyTest, MadeOnceAndKeptPrivate) {
  TestDir dir;
  const absl::StatusOr<std::string> made = LoadOrCreateLeaseKey(dir.path());
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_EQ(made->size(), static_cast<size_t>(security::kLeaseKeyBytes));
  struct stat info {};
  ASSERT_EQ(stat((dir.path() + "/lease.key").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  const absl::StatusOr<std::string> again = LoadOrCreateLeaseKey(dir.path());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, *made);  // tickets signed before a restart still hold
  TestDir other;
  EXPECT_NE(*LoadOrCreateLeaseKey(other.path()), *made);
}

TEST(LeaseKeyTest, ADamagedKeyIsRefusedAndLeftAsItIs) {
  TestDir dir;
  const std::string path = dir.path() + "/lease.key";
  ASSERT_TRUE(WriteFileAtomically(path, "short", 0600).ok());
  const absl::StatusOr<std::string> key = LoadOrCreateLeaseKey(dir.path());
  EXPECT_EQ(key.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(key.status().message(), HasSubstr(path + ": 5 bytes"));
  EXPECT_EQ(*ReadWholeFile(path), "short");
}

}  // namespace
}  // namespace mmapzero::coordinator
