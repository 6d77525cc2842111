#include "coordinator/dashboard.h"

#include <string>
#include <vector>

#include "coordinator/job_history.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace mmapzero::coordinator {
namespace {

v1::JobStatus Job(const std::string& id, v1::JobState state, double best,
                  int64_t step) {
  v1::JobStatus job;
  job.set_job_id(id);
  job.set_state(state);
  job.set_best_normalised_return(best);
  job.set_learner_step(step);
  job.set_games(step * 10);
  job.set_moves(step * 1000);
  job.set_parameter_version(step / 10);
  return job;
}

TEST(JobHistoryTest, RecordsRunningJobsAndOneLastSampleWhenTheyEnd) {
  JobHistory history;
  history.Record({Job("job-000001", v1::JOB_STATE_QUEUED, 0.4, 0)}, 1000);
  EXPECT_TRUE(history.Samples("job-000001").empty());  // not started
  history.Record({Job("job-000001", v1::JOB_STATE_RUNNING, 0.5, 10)}, 2000);
  history.Record({Job("job-000001", v1::JOB_STATE_RUNNING, 0.6, 20)}, 4000);
  v1::JobStatus done = Job("job-000001", v1::JOB_STATE_DONE, 0.7, 30);
  done.set_finished_unix_ms(5000);
  history.Record({done}, 6000);
  history.Record({done}, 8000);  // ended: no more samples
  const std::vector<JobSample> samples = history.Samples("job-000001");
  ASSERT_EQ(samples.size(), 3u);
  EXPECT_EQ(samples[0].unix_ms, 2000);
  EXPECT_DOUBLE_EQ(samples[1].best_normalised_return, 0.6);
  EXPECT_EQ(samples[2].unix_ms, 5000);  // the job's own end
  EXPECT_EQ(samples[2].learner_step, 30);
  EXPECT_EQ(samples[2].games, 300);
  EXPECT_EQ(samples[2].moves, 30000);
  EXPECT_TRUE(history.Samples("job-000002").empty());
}

TEST(JobHistoryTest, AFullSeriesKeepsItsWholeSpanAtACoarserGrain) {
  JobHistory history(/*max_points=*/8);
  for (int i = 0; i < 100; ++i) {
    history.Record({Job("job-000001", v1::JOB_STATE_RUNNING, 0.5, i)},
                   1000 * i);
  }
  const std::vector<JobSample> samples = history.Samples("job-000001");
  EXPECT_LE(samples.size(), 8u);
  EXPECT_GE(samples.size(), 4u);
  EXPECT_EQ(samples.front().unix_ms, 0);       // the start is kept
  EXPECT_EQ(samples.back().unix_ms, 99'000);   // and the latest
  for (size_t i = 1; i < samples.size(); ++i) {
    EXPECT_LT(samples[i - 1].unix_ms, samples[i].unix_ms);
  }
}

TEST(JobHistoryTest, ADeletedJobsSeriesIsForgotten) {
  JobHistory history;
  const v1::JobStatus kept = Job("job-000001", v1::JOB_STATE_RUNNING, 0.5, 1);
  v1::JobStatus deleted = Job("job-000002", v1::JOB_STATE_RUNNING, 0.4, 1);
  history.Record({kept, deleted}, 1000);
  deleted.set_state(v1::JOB_STATE_CANCELLED);
  history.Record({kept, deleted}, 2000);
  ASSERT_EQ(history.Samples("job-000002").size(), 2u);  // ended, still kept
  history.Record({kept}, 3000);  // deleted: no longer listed
  EXPECT_TRUE(history.Samples("job-000002").empty());
  EXPECT_EQ(history.Samples("job-000001").size(), 3u);
}

TEST(DashboardJsonTest, JobsWithHistoryAndWorkersWithTheirLag) {
  JobHistory history;
  const v1::JobStatus running = Job("job-000001", v1::JOB_STATE_RUNNING, 0.5, 400);
  history.Record({running}, 1000);
  WorkerView actor;
  actor.worker_id = "worker-000003";
  actor.name = "actor-0";
  actor.role = v1::WORKER_ROLE_ACTOR;
  actor.parameter_versions = {{"job-000001", 31}, {"job-000009", 5}};
  const nlohmann::json data = nlohmann::json::parse(
      DashboardJson({running}, history, {actor}, 2000));
  EXPECT_EQ(data["now_unix_ms"], 2000);
  ASSERT_EQ(data["jobs"].size(), 1u);
  EXPECT_EQ(data["jobs"][0]["state"], "running");
  EXPECT_EQ(data["jobs"][0]["history"].size(), 1u);
  EXPECT_EQ(data["jobs"][0]["history"][0][0], 1000);
  EXPECT_EQ(data["jobs"][0]["history"][0][2], 400);
  const nlohmann::json& worker = data["workers"][0];
  EXPECT_EQ(worker["role"], "actor");
  ASSERT_EQ(worker["jobs"].size(), 2u);
  EXPECT_EQ(worker["jobs"][0]["lag"], 40 - 31);
  // A job the dashboard does not list (gone): no lag to tell.
  EXPECT_EQ(worker["jobs"][1]["lag"], 0);
}

TEST(DashboardJsonTest, TheLearnerAndReplayHaveNoLag) {
  const v1::JobStatus running = Job("job-000001", v1::JOB_STATE_RUNNING, 0.5, 400);
  WorkerView replay;
  replay.worker_id = "worker-000001";
  replay.role = v1::WORKER_ROLE_REPLAY;
  replay.parameter_versions = {{"job-000001", 0}};
  WorkerView learner = replay;
  learner.worker_id = "worker-000002";
  learner.role = v1::WORKER_ROLE_LEARNER;
  const nlohmann::json data = nlohmann::json::parse(
      DashboardJson({running}, JobHistory(), {replay, learner}, 2000));
  for (const nlohmann::json& worker : data["workers"]) {
    EXPECT_TRUE(worker["jobs"][0]["lag"].is_null()) << worker.dump();
  }
}

}  // namespace
}  // namespace mmapzero::coordinator
