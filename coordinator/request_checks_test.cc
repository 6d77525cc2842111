// The request checks that need no server: a job's name is bounded and
// printable, a long workload name gives a default name cut at a character
// boundary, and a heartbeat's list of stored jobs is bounded.
#include "coordinator/request_checks.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::coordinator {
namespace {

using ::testing::HasSubstr;

v1::SubmitJobRequest Named(const std::string& name,
                           const std::string& workload_name) {
  v1::SubmitJobRequest request;
  request.set_name(name);
  request.mutable_workload()->set_name(workload_name);
  return request;
}

TEST(JobNameTest, TheRequestsNameOrTheWorkloadsCutToTheLimit) {
  EXPECT_EQ(JobNameOf(Named("mine", "lstm")), "mine");
  EXPECT_EQ(JobNameOf(Named("", "lstm")), "lstm");
  const std::string long_name(kMaxJobNameBytes + 10, 'w');
  EXPECT_EQ(JobNameOf(Named("", long_name)),
            long_name.substr(0, kMaxJobNameBytes));
  // "é" is two bytes; one straddling the limit is left out whole.
  const std::string accents =
      std::string(kMaxJobNameBytes - 1, 'a') + "\xc3\xa9" + "tail";
  EXPECT_EQ(JobNameOf(Named("", accents)),
            std::string(kMaxJobNameBytes - 1, 'a'));
}

TEST(JobNameTest, ALongOrControlNameIsRefusedBeforeTheWorkload) {
  const absl::Status too_long = CheckSubmittedWorkload(
      Named(std::string(kMaxJobNameBytes + 1, 'n'), "w"));
  EXPECT_EQ(too_long.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(too_long.message(), HasSubstr("name: at most 256 bytes"));
  const absl::Status control = CheckSubmittedWorkload(Named("a\tb", "w"));
  EXPECT_EQ(control.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(control.message(), HasSubstr("got 9 at byte 1"));
  // A good name gets as far as the (empty) workload.
  const absl::Status good =
      CheckSubmittedWorkload(Named(std::string(kMaxJobNameBytes, 'n'), "w"));
  EXPECT_THAT(good.message(), HasSubstr("workload."));
}

// A heartbeat lists at most 256 stored jobs, each with short names: every
// entry costs the coordinator a lookup under its lock.
TEST(HeartbeatCheckTest, StoredJobsAreBounded) {
  v1::HeartbeatRequest request;
  for (int i = 0; i < 256; ++i) request.add_stored_jobs()->set_job_id("job-1");
  EXPECT_TRUE(CheckHeartbeat(request).ok());
  request.add_stored_jobs()->set_job_id("job-1");
  const absl::Status too_many = CheckHeartbeat(request);
  EXPECT_EQ(too_many.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(too_many.message(),
              HasSubstr("stored_jobs: at most 256 entries, got 257"));
  request.clear_stored_jobs();
  request.add_stored_jobs()->set_job_uid(std::string(5000, 'a'));
  EXPECT_THAT(CheckHeartbeat(request).message(),
              HasSubstr("stored_jobs[0].job_uid: at most 4096 bytes"));
}

}  // namespace
}  // namespace mmapzero::coordinator
