#include "worker/parameter_store.h"

#include <string>

#include "common/rpc/parameter_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::worker {
namespace {

using ::testing::HasSubstr;

TEST(ParameterStoreTest, KeepsTheLastVersionsAndNamesWhatIsGone) {
  ParameterStore store(/*kept_versions=*/2);
  for (int version = 1; version <= 3; ++version) {
    store.Publish("job-000001", version * 10, std::string(version, 'x'),
                  "torch-archive-v1");
  }
  EXPECT_EQ(*store.LatestVersion("job-000001"), 30);
  absl::StatusOr<ParameterSnapshot> kept = store.Find("job-000001", 20);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(*kept->bytes, "xx");
  EXPECT_EQ(kept->format, "torch-archive-v1");
  EXPECT_EQ(kept->crc32c, rpc::Crc32c("xx"));

  const absl::StatusOr<ParameterSnapshot> gone = store.Find("job-000001", 10);
  EXPECT_TRUE(absl::IsNotFound(gone.status()));
  EXPECT_THAT(std::string(gone.status().message()),
              HasSubstr("version: 10 of job 'job-000001' is no longer kept "
                        "(latest 30)"));
  const absl::StatusOr<int64_t> unknown = store.LatestVersion("job-000009");
  EXPECT_TRUE(absl::IsNotFound(unknown.status()));
  EXPECT_THAT(std::string(unknown.status().message()), HasSubstr("job-000009"));
}

TEST(ParameterStoreTest, AResumedJobsRepublishedVersionReplacesNewerOnes) {
  ParameterStore store;
  store.Publish("job-000001", 10, "a", "f");
  store.Publish("job-000001", 20, "b", "f");
  // Resumed from the checkpoint of step 10: its bytes win, 20 is gone.
  store.Publish("job-000001", 10, "c", "f");
  EXPECT_EQ(*store.LatestVersion("job-000001"), 10);
  EXPECT_EQ(*store.Find("job-000001", 0)->bytes, "c");
  EXPECT_TRUE(absl::IsNotFound(store.Find("job-000001", 20).status()));
}

TEST(ParameterStoreTest, ASnapshotHeldByAStreamOutlivesNewerPublishes) {
  ParameterStore store(/*kept_versions=*/1);
  store.Publish("job-000001", 1, "first", "f");
  const absl::StatusOr<ParameterSnapshot> held = store.Find("job-000001", 1);
  ASSERT_TRUE(held.ok());
  store.Publish("job-000001", 2, "second", "f");
  store.Remove("job-000001");
  EXPECT_EQ(*held->bytes, "first");
  EXPECT_TRUE(absl::IsNotFound(store.LatestVersion("job-000001").status()));
}

TEST(ParameterStoreTest, KeepsAtLeastOneVersion) {
  ParameterStore store(/*kept_versions=*/0);
  store.Publish("job-000001", 5, "x", "f");
  EXPECT_EQ(*store.LatestVersion("job-000001"), 5);
}

}  // namespace
}  // namespace mmapzero::worker
