#include "learner/checkpoint_folders.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "coordinator/test_dir.h"
#include "gtest/gtest.h"

namespace mmapzero::learner {
namespace {

namespace fs = std::filesystem;

void Touch(const fs::path& path, int bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << std::string(bytes, 'x');
}

v1::StoredJob Job(const std::string& id, const std::string& uid) {
  v1::StoredJob job;
  job.set_job_id(id);
  job.set_job_uid(uid);
  return job;
}

// A job's folder and every sibling of it (.old, .tmp, .fence, .damaged-N)
// are listed as one job and removed together; nothing else is touched.
TEST(CheckpointFoldersTest, ListsJobsAndRemovesOneJobsFoldersOnly) {
  coordinator::TestDir dir;
  const fs::path learner = fs::path(dir.path()) / "learner";
  const std::string a = "job-000001-0123abcd";
  Touch(learner / a / "learner.txt", 100);
  Touch(learner / (a + ".old") / "network.pt", 1000);
  Touch(learner / (a + ".fence"), 2);
  Touch(learner / (a + ".damaged-1") / "learner.txt", 10);
  Touch(learner / "job-000001-4567ef01" / "learner.txt", 5);  // same id
  Touch(learner / "job-000002" / "learner.txt", 5);           // no uid
  Touch(learner / "notes.txt", 5);                            // not a job
  Touch(learner / "job-x" / "learner.txt", 5);

  const std::vector<v1::StoredJob> listed = ListCheckpointJobs(dir.path());
  ASSERT_EQ(listed.size(), 3u);
  EXPECT_EQ(listed[0].job_id(), "job-000001");
  EXPECT_EQ(listed[0].job_uid(), "0123abcd");
  EXPECT_EQ(listed[1].job_uid(), "4567ef01");
  EXPECT_EQ(listed[2].job_id(), "job-000002");
  EXPECT_EQ(listed[2].job_uid(), "");

  const absl::StatusOr<int64_t> freed =
      RemoveCheckpointFolders(dir.path(), Job("job-000001", "0123abcd"));
  ASSERT_TRUE(freed.ok()) << freed.status();
  EXPECT_EQ(*freed, 100 + 1000 + 2 + 10);
  for (const std::string& gone :
       {a, a + ".old", a + ".fence", a + ".damaged-1"}) {
    EXPECT_FALSE(fs::exists(learner / gone)) << gone;
  }
  EXPECT_TRUE(fs::exists(learner / "job-000001-4567ef01"));
  EXPECT_TRUE(fs::exists(learner / "job-000002"));
  EXPECT_TRUE(fs::exists(learner / "notes.txt"));
  EXPECT_EQ(ListCheckpointJobs(dir.path()).size(), 2u);

  // Without a uid: "job-000002" only, not "job-000002-..." of another job.
  Touch(learner / "job-000002-89ab" / "learner.txt", 5);
  ASSERT_TRUE(RemoveCheckpointFolders(dir.path(), Job("job-000002", "")).ok());
  EXPECT_FALSE(fs::exists(learner / "job-000002"));
  EXPECT_TRUE(fs::exists(learner / "job-000002-89ab"));
  // Removing what is not there frees nothing.
  EXPECT_EQ(*RemoveCheckpointFolders(dir.path(), Job("job-000003", "ab")), 0);
}

TEST(CheckpointFoldersTest, ANameThatIsNotAJobsTouchesNothing) {
  coordinator::TestDir dir;
  Touch(fs::path(dir.path()) / "keep" / "file", 1);
  for (const v1::StoredJob& job :
       {Job("..", ""), Job("job-000001", "../../keep"), Job("job-1/../..", ""),
        Job("", ""), Job("job-", "ab")}) {
    EXPECT_EQ(RemoveCheckpointFolders(dir.path(), job).status().code(),
              absl::StatusCode::kInvalidArgument)
        << job.job_id() << " " << job.job_uid();
  }
  EXPECT_TRUE(fs::exists(fs::path(dir.path()) / "keep" / "file"));
}

}  // namespace
}  // namespace mmapzero::learner
