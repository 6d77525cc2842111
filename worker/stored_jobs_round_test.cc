// The rounds in which a worker asks the coordinator about the jobs whose
// state it keeps on its disk (WorkerSession's StoredJobState).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "worker/worker_session.h"

namespace mmapzero::worker {
namespace {

std::vector<v1::StoredJob> Jobs(int count) {
  std::vector<v1::StoredJob> jobs(count);
  for (int i = 0; i < count; ++i) {
    jobs[i].set_job_id(absl::StrCat("job-", i + 1));
  }
  return jobs;
}

TEST(StoredJobsRoundTest, AListThatFitsGoesWholeEveryTime) {
  size_t cursor = 0;
  EXPECT_EQ(StoredJobsRound(Jobs(2), &cursor).size(), 2u);
  // It grew: the new one is asked about with the others, not alone.
  const std::vector<v1::StoredJob> grown = StoredJobsRound(Jobs(3), &cursor);
  ASSERT_EQ(grown.size(), 3u);
  EXPECT_EQ(grown[0].job_id(), "job-1");
  EXPECT_EQ(StoredJobsRound(Jobs(kMaxStoredJobsPerHeartbeat), &cursor).size(),
            static_cast<size_t>(kMaxStoredJobsPerHeartbeat));
}

TEST(StoredJobsRoundTest, ALongListIsAskedAboutInTurnWrappingAround) {
  const int total = kMaxStoredJobsPerHeartbeat + 44;  // 300
  size_t cursor = 0;
  std::vector<int> asked(total, 0);
  for (int round = 0; round < 2; ++round) {
    const std::vector<v1::StoredJob> jobs =
        StoredJobsRound(Jobs(total), &cursor);
    ASSERT_EQ(jobs.size(), static_cast<size_t>(kMaxStoredJobsPerHeartbeat));
    for (const v1::StoredJob& job : jobs) {
      ++asked[std::stoi(job.job_id().substr(4)) - 1];
    }
  }
  for (int i = 0; i < total; ++i) EXPECT_GE(asked[i], 1) << i;  // all asked
  // A list that shrank below the cursor still starts inside it.
  const std::vector<v1::StoredJob> shrunk =
      StoredJobsRound(Jobs(kMaxStoredJobsPerHeartbeat + 1), &cursor);
  EXPECT_EQ(shrunk.size(), static_cast<size_t>(kMaxStoredJobsPerHeartbeat));
}

}  // namespace
}  // namespace mmapzero::worker
