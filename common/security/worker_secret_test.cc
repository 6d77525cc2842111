#include "common/security/worker_secret.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::security {
namespace {

using ::testing::HasSubstr;

TEST(WorkerSecretTest, ProvesOneIdUnderOneKey) {
  const std::string key(32, 'k');
  const std::string secret = WorkerSecret(key, "worker-000003");
  EXPECT_EQ(secret.size(), 64u);
  EXPECT_EQ(secret, WorkerSecret(key, "worker-000003"));  // recomputed
  EXPECT_NE(secret, WorkerSecret(key, "worker-000004"));
  EXPECT_NE(secret, WorkerSecret(std::string(32, 'j'), "worker-000003"));
  EXPECT_TRUE(CheckWorkerSecret(key, "worker-000003", secret).ok());

  const absl::Status missing = CheckWorkerSecret(key, "worker-000003", "");
  EXPECT_EQ(missing.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(
      missing.message(),
      HasSubstr("worker_secret: missing for worker_id 'worker-000003'"));
  EXPECT_THAT(CheckWorkerSecret(key, "worker-000004", secret).message(),
              HasSubstr("worker_secret: wrong"));
  EXPECT_FALSE(
      CheckWorkerSecret(key, "worker-000003", secret.substr(0, 63)).ok());
  // Without a key nothing is proven.
  EXPECT_FALSE(
      CheckWorkerSecret("", "worker-000003", WorkerSecret("", "worker-000003"))
          .ok());
}

}  // namespace
}  // namespace mmapzero::security
