// An actor against a real coordinator (loopback, temporary SQLite) with
// in-test replay and learner servers (test_cluster.h), on
// examples/small.json with a tiny configuration: it takes the job, adopts
// the learner's parameters, pushes readable trajectories, reports solutions
// the coordinator validates, sends its counters, and stops the job when the
// assignment goes. Plus the metrics' text.
#include "actor/actor_worker.h"

#include <memory>
#include <string>

#include "actor/actor_metrics.h"
#include "worker/test_cluster.h"
#include "common/agent/trajectory_proto.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::actor {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using worker::ParametersOf;
using worker::TestCluster;
using worker::TinyConfig;
using worker::WaitFor;

std::unique_ptr<ActorWorker> StartActor(TestCluster& cluster,
                                        ActorMetrics* metrics = nullptr,
                                        int capacity = 1) {
  absl::StatusOr<std::unique_ptr<ActorWorker>> worker =
      ActorWorker::Start({.coordinator = cluster.coordinator_address(),
                          .name = "test-actor",
                          .capacity = capacity,
                          .seed = 5,
                          .rpc_deadline = absl::Seconds(5),
                          .parameter_poll = absl::Milliseconds(100),
                          .trajectory_batch = 2,
                          .metrics = metrics});
  EXPECT_TRUE(worker.ok()) << worker.status();
  return worker.ok() ? *std::move(worker) : nullptr;
}

TEST(ActorWorkerIntegrationTest, PlaysPushesTrajectoriesAndReportsSolutions) {
  TestCluster cluster("drop-all");
  const MuZeroConfig config = TinyConfig();
  cluster.parameters().Set(7, ParametersOf(config, 3));
  const std::string job = cluster.SubmitRunningJob(config);
  absl::StatusOr<std::unique_ptr<ActorMetrics>> metrics =
      ActorMetrics::Start("");
  ASSERT_TRUE(metrics.ok());
  std::unique_ptr<ActorWorker> actor = StartActor(cluster, metrics->get());
  ASSERT_NE(actor, nullptr);

  auto stats = [&] { return actor->JobStats(job); };
  ASSERT_TRUE(WaitFor([&] {
    std::optional<ActorJobStats> s = stats();
    return s && s->parameter_version == 7 && s->outbox.sent >= 2 &&
           s->outbox.accepted >= 1;
  })) << "parameter version "
      << (stats() ? stats()->parameter_version : -1);
  EXPECT_EQ(stats()->learner_version, 7);
  EXPECT_GE(cluster.parameters().fetches(), 1);

  // Trajectories: for this job from this worker, readable, played moves.
  const std::vector<v1::InsertTrajectoriesRequest> inserts =
      cluster.replay().inserts();
  ASSERT_FALSE(inserts.empty());
  for (const v1::InsertTrajectoriesRequest& insert : inserts) {
    EXPECT_EQ(insert.job_id(), job);
    EXPECT_EQ(insert.worker_id(), actor->worker_id());
    EXPECT_LE(insert.trajectories_size(), 2);
    for (const v1::Trajectory& proto : insert.trajectories()) {
      absl::StatusOr<agent::Trajectory> trajectory =
          agent::TrajectoryFromProto(proto);
      ASSERT_TRUE(trajectory.ok()) << trajectory.status();
      EXPECT_FALSE(trajectory->steps.empty());
    }
  }

  // The coordinator replayed the report and took it over drop-all's seed.
  std::optional<v1::ReportSolutionResponse> report =
      stats()->outbox.last_report;
  ASSERT_TRUE(report.has_value());
  EXPECT_GT(report->validated_normalised_return(), 0);
  EXPECT_THAT(report->reason(), ::testing::Not(HasSubstr("claimed")));
  v1::GetBestSolutionRequest best_request;
  best_request.set_job_id(job);
  absl::StatusOr<v1::GetBestSolutionResponse> best =
      cluster.coordinator().GetBestSolution(best_request);
  ASSERT_TRUE(best.ok()) << best.status();
  EXPECT_EQ(best->worker_id(), actor->worker_id());
  EXPECT_EQ(best->solution().solver().name(), "muzero");
  EXPECT_GT(best->solution().normalised_return(), 0);
  EXPECT_LE(best->solution().normalised_return(),
            stats()->outbox.best_offered + 1e-9);

  // Counters reach the coordinator with the heartbeats.
  ASSERT_TRUE(WaitFor([&] { return cluster.Job(job).games() >= 2; }));
  const v1::JobStatus status = cluster.Job(job);
  EXPECT_GT(status.moves(), status.games());
  // 4 per searched move; forced, fast and followed moves run none.
  EXPECT_GT(status.simulations(), 0);
  EXPECT_LE(status.simulations(), 4 * status.moves());
  EXPECT_EQ(status.actors(), 1);
  // The CPU preset starts every game from the best so far (the seed, at
  // first), with a window of 4 decisions that only grows.
  ASSERT_TRUE(WaitFor([&] { return cluster.Job(job).best_starts() >= 1; }));
  const v1::JobStatus varied = cluster.Job(job);
  EXPECT_LE(varied.best_starts(), varied.games() + 2);  // 2 games at once
  EXPECT_LE(varied.followed_moves(), varied.moves());
  EXPECT_LE(varied.unchanged(), varied.rejoined());
  EXPECT_GE(varied.best_start_window(), 4);

  const std::string text = (*metrics)->Text();
  EXPECT_THAT(text, HasSubstr("mmapzero_actor_parameter_version{job=\"" + job +
                              "\"} 7"));
  EXPECT_THAT(text, HasSubstr("mmapzero_actor_inference_batch_size_count"));
  EXPECT_THAT(text, HasSubstr("mmapzero_actor_best_starts_total{job=\"" + job +
                              "\"}"));
  EXPECT_THAT(text, HasSubstr("mmapzero_actor_best_start_window{job=\"" +
                              job + "\"}"));
  EXPECT_THAT(text, HasSubstr("mmapzero_actor_episode_normalised_return_count"
                              "{job=\"" +
                              job + "\"}"));
  actor->Shutdown(absl::Seconds(2));
  // The actor no longer plays the job: its series go, the actor's own stay.
  const std::string after = (*metrics)->Text();
  EXPECT_THAT(after, Not(HasSubstr("job=\"" + job + "\""))) << after;
  EXPECT_THAT(after, HasSubstr("mmapzero_actor_inference_batch_size_count"));
}

TEST(ActorWorkerIntegrationTest, StopsAJobWhoseAssignmentDisappears) {
  TestCluster cluster("drop-all");
  const std::string job = cluster.SubmitRunningJob(TinyConfig());
  std::unique_ptr<ActorWorker> actor = StartActor(cluster);
  ASSERT_NE(actor, nullptr);
  ASSERT_TRUE(WaitFor([&] { return actor->JobIds().size() == 1; }));
  // No learner parameters published: the actor plays with its initial ones.
  ASSERT_TRUE(WaitFor([&] {
    std::optional<ActorJobStats> s = actor->JobStats(job);
    return s && s->outbox.sent >= 1;
  }));
  EXPECT_EQ(actor->JobStats(job)->parameter_version, 0);
  v1::CancelJobRequest cancel;
  cancel.set_job_id(job);
  cancel.set_reason("test");
  ASSERT_TRUE(cluster.coordinator().CancelJob(cancel).ok());
  ASSERT_TRUE(WaitFor([&] { return actor->JobIds().empty(); }));
  // The stopped job's queue may drain for at most the supervisor's 2 s
  // (short games fill it quickly); after that, nothing more arrives.
  absl::SleepFor(absl::Milliseconds(2500));
  const int64_t inserted = cluster.replay().inserted();
  absl::SleepFor(absl::Milliseconds(300));
  EXPECT_EQ(cluster.replay().inserted(), inserted);  // nothing after the stop
  actor->Shutdown(absl::Seconds(1));
}

// A workload past gRPC's 4 MiB receive default (here 6 MB of provenance):
// when assignments carried workloads the actor once never read it, and the
// job sat RUNNING with no games. It comes by FetchWorkload now.
TEST(ActorWorkerIntegrationTest, TakesAJobWhoseWorkloadPassesFourMebibytes) {
  TestCluster cluster("drop-all");
  const std::string job =
      cluster.SubmitRunningJob(TinyConfig(), /*padding_bytes=*/6'000'000);
  std::unique_ptr<ActorWorker> actor = StartActor(cluster);
  ASSERT_NE(actor, nullptr);
  ASSERT_TRUE(WaitFor([&] {
    std::optional<ActorJobStats> s = actor->JobStats(job);
    return s && s->outbox.sent >= 1;
  }));
  actor->Shutdown(absl::Seconds(1));
}

// Two jobs whose workloads together pass the 64 MiB message limit,
// assigned to one actor in the same heartbeat: an answer that carried both
// could not be sent at all. The workloads come by FetchWorkload, in chunks.
TEST(ActorWorkerIntegrationTest, TakesTwoJobsPastTheMessageLimitTogether) {
  TestCluster cluster("drop-all");
  const std::string first =
      cluster.SubmitRunningJob(TinyConfig(), /*padding_bytes=*/36'000'000);
  const std::string second =
      cluster.SubmitRunningJob(TinyConfig(), /*padding_bytes=*/36'000'000);
  std::unique_ptr<ActorWorker> actor =
      StartActor(cluster, nullptr, /*capacity=*/2);
  ASSERT_NE(actor, nullptr);
  ASSERT_TRUE(WaitFor([&] {
    std::optional<ActorJobStats> a = actor->JobStats(first);
    std::optional<ActorJobStats> b = actor->JobStats(second);
    return a && b && a->outbox.sent >= 1 && b->outbox.sent >= 1;
  }));
  actor->Shutdown(absl::Seconds(1));
}

TEST(ActorWorkerTest, RefusesBadOptionsNamingTheFlag) {
  ActorWorkerOptions options;
  options.coordinator = "127.0.0.1:1";
  options.capacity = 0;
  absl::StatusOr<std::unique_ptr<ActorWorker>> worker =
      ActorWorker::Start(options);
  ASSERT_FALSE(worker.ok());
  EXPECT_EQ(worker.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(worker.status().message(), HasSubstr("--capacity"));
  EXPECT_THAT(worker.status().message(), HasSubstr("got 0"));
  options.capacity = 1;
  options.trajectory_batch = -2;
  worker = ActorWorker::Start(options);
  ASSERT_FALSE(worker.ok());
  EXPECT_THAT(worker.status().message(), HasSubstr("--trajectory-batch"));
  options.trajectory_batch = 8;
  options.coordinator = "";
  worker = ActorWorker::Start(options);
  ASSERT_FALSE(worker.ok());
  EXPECT_EQ(worker.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ActorMetricsTest, TextShowsCountersGaugesAndHistograms) {
  absl::StatusOr<std::unique_ptr<ActorMetrics>> metrics =
      ActorMetrics::Start("");
  ASSERT_TRUE(metrics.ok());
  ActorMetrics& m = **metrics;
  m.AddGame("job-1", 0.25);
  m.AddGame("job-1", 0.75);
  m.AddMoves("job-1", 30);
  m.SetParameters("job-1", 10, 25);
  m.ObserveInference(8, absl::Milliseconds(2));
  m.AddTrajectories("job-1", 3, 1);
  const std::string text = m.Text();
  EXPECT_THAT(text, HasSubstr("mmapzero_actor_games_total{job=\"job-1\"} 2"));
  EXPECT_THAT(text, HasSubstr("mmapzero_actor_moves_total{job=\"job-1\"} 30"));
  EXPECT_THAT(text,
              HasSubstr("mmapzero_actor_parameter_lag{job=\"job-1\"} 15"));
  EXPECT_THAT(text, HasSubstr("mmapzero_actor_episode_normalised_return_sum"
                              "{job=\"job-1\"} 1"));
  EXPECT_THAT(text, HasSubstr("mmapzero_actor_inference_batch_size_sum 8"));
  EXPECT_THAT(
      text,
      HasSubstr("mmapzero_actor_trajectories_dropped_total{job=\"job-1\"} 1"));

  m.AddGame("job-2", 0.5);
  m.ForgetJob("job-1");
  const std::string after = m.Text();
  EXPECT_THAT(after, Not(HasSubstr("job-1"))) << after;
  EXPECT_THAT(after, HasSubstr("mmapzero_actor_games_total{job=\"job-2\"} 1"));
  EXPECT_THAT(after, HasSubstr("mmapzero_actor_inference_batch_size_sum 8"));
}

}  // namespace
}  // namespace mmapzero::actor
