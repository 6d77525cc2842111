// The outbox against an in-test ReplayService on a loopback port: batches,
// drop-oldest while replay is away, retries, a bounded drain, and solution
// reports only for improvements.
#include "worker/job_outbox.h"

#include <atomic>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/rpc/grpc_server.h"
#include "worker/fake_replay_service.h"
#include "worker/wait_for.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::worker {
namespace {

using ::testing::ElementsAre;

// A trajectory told apart by its episode return.
v1::Trajectory Marked(double mark) {
  v1::Trajectory trajectory;
  trajectory.set_episode_return(mark);
  trajectory.add_steps()->set_buffer(0);
  return trajectory;
}

// Options for job-1 from worker-1, `batch_size` per insert, up to
// `max_queued` waiting, reporting through `report`.
JobOutboxOptions Options(int batch_size = 8, int max_queued = 256,
                         SolutionReporter report = {}) {
  JobOutboxOptions options;
  options.job_id = "job-1";
  options.worker_id = "worker-1";
  options.batch_size = batch_size;
  options.max_queued = max_queued;
  options.report = std::move(report);
  return options;
}

Solution WithReturn(double normalised_return) {
  Solution solution;
  solution.set_normalised_return(normalised_return);
  return solution;
}

class JobOutboxTest : public ::testing::Test {
 protected:
  JobOutboxTest() {
    absl::StatusOr<rpc::StartedServer> server =
        rpc::StartGrpcServer(rpc::GrpcServerOptions{.listen = "127.0.0.1:0",
                                                    .services = {&replay_},
                                                    .service_names = {}});
    EXPECT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }
  ~JobOutboxTest() override {
    server_.server->Shutdown(std::chrono::system_clock::now());
  }
  std::string address() const {
    return absl::StrCat("127.0.0.1:", server_.port);
  }
  std::vector<double> InsertedMarks() const {
    std::vector<double> marks;
    for (const auto& insert : replay_.inserts()) {
      for (const auto& t : insert.trajectories()) {
        marks.push_back(t.episode_return());
      }
    }
    return marks;
  }

  FakeReplayService replay_;
  rpc::StartedServer server_;
};

TEST_F(JobOutboxTest, DropsTheOldestWhileReplayIsAwayThenSendsTheRest) {
  JobOutbox outbox(Options(8, 3));
  for (int i = 0; i < 5; ++i) outbox.Add(Marked(i));
  OutboxStats stats = outbox.stats();
  EXPECT_EQ(stats.queued, 3);
  EXPECT_EQ(stats.dropped, 2);
  outbox.SetReplayAddress(address());
  ASSERT_TRUE(WaitFor([&] { return outbox.stats().sent == 3; }));
  EXPECT_THAT(InsertedMarks(), ElementsAre(2, 3, 4));
  for (const auto& insert : replay_.inserts()) {
    EXPECT_EQ(insert.job_id(), "job-1");
    EXPECT_EQ(insert.worker_id(), "worker-1");
  }
}

TEST_F(JobOutboxTest, SendsInBatchesOfAtMostBatchSize) {
  JobOutbox outbox(Options(2));
  for (int i = 0; i < 5; ++i) outbox.Add(Marked(i));
  outbox.SetReplayAddress(address());
  ASSERT_TRUE(WaitFor([&] { return outbox.stats().sent == 5; }));
  EXPECT_THAT(InsertedMarks(), ElementsAre(0, 1, 2, 3, 4));
  for (const auto& insert : replay_.inserts()) {
    EXPECT_LE(insert.trajectories_size(), 2);
  }
}

// A trajectory of `steps` steps of `floats` observation floats each.
v1::Trajectory Sized(double mark, int steps, int floats) {
  v1::Trajectory trajectory = Marked(mark);
  for (int i = 1; i < steps; ++i) trajectory.add_steps()->set_buffer(i);
  for (auto& step : *trajectory.mutable_steps()) {
    step.mutable_vector()->Resize(floats, 0.5f);
  }
  return trajectory;
}

TEST_F(JobOutboxTest, KeepsBatchesUnderTheByteLimitAndDropsOversizedGames) {
  JobOutboxOptions options = Options(8);
  options.max_request_bytes = 10'000;
  JobOutbox outbox(options);
  // About 4 KB each: two fit a request, three do not.
  for (int i = 0; i < 4; ++i) outbox.Add(Sized(i, 10, 100));
  // About 40 KB: can never be sent, so it is not queued (not retried).
  outbox.Add(Sized(9, 100, 100));
  EXPECT_EQ(outbox.stats().oversized, 1);
  EXPECT_EQ(outbox.stats().queued, 4);
  outbox.SetReplayAddress(address());
  ASSERT_TRUE(WaitFor([&] { return outbox.stats().sent == 4; }));
  EXPECT_THAT(InsertedMarks(), ElementsAre(0, 1, 2, 3));
  for (const auto& insert : replay_.inserts()) {
    EXPECT_LE(insert.ByteSizeLong(), 10'000u);
    EXPECT_LE(insert.trajectories_size(), 2);
  }
  EXPECT_EQ(outbox.stats().send_failures, 0);
}

TEST_F(JobOutboxTest, RetriesUntilReplayIsBack) {
  replay_.set_available(false);
  JobOutbox outbox(Options());
  outbox.SetReplayAddress(address());
  outbox.Add(Marked(1));
  outbox.Add(Marked(2));
  ASSERT_TRUE(WaitFor([&] { return outbox.stats().send_failures >= 1; }));
  EXPECT_EQ(outbox.stats().sent, 0);
  replay_.set_available(true);
  ASSERT_TRUE(WaitFor([&] { return outbox.stats().sent == 2; }));
  EXPECT_THAT(InsertedMarks(), ElementsAre(1, 2));
  EXPECT_EQ(outbox.stats().dropped, 0);
}

TEST_F(JobOutboxTest, DrainGivesUpAfterItsTimeoutAndCountsWhatIsLeft) {
  replay_.set_available(false);
  JobOutbox outbox(Options());
  outbox.SetReplayAddress(address());
  for (int i = 0; i < 3; ++i) outbox.Add(Marked(i));
  const absl::Time start = absl::Now();
  outbox.Drain(absl::Milliseconds(300));
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  EXPECT_EQ(outbox.stats().dropped, 3);
  EXPECT_EQ(outbox.stats().sent, 0);
  outbox.Add(Marked(9));  // ignored after the drain
  EXPECT_EQ(outbox.stats().queued, 0);
}

TEST_F(JobOutboxTest, DrainSendsWhatIsQueued) {
  JobOutbox outbox(Options(1));
  for (int i = 0; i < 4; ++i) outbox.Add(Marked(i));
  outbox.SetReplayAddress(address());
  outbox.Drain(absl::Seconds(5));
  EXPECT_EQ(outbox.stats().sent, 4);
  EXPECT_EQ(outbox.stats().dropped, 0);
}

TEST_F(JobOutboxTest, ReportsOnlySolutionsBetterThanTheBestOffered) {
  absl::Mutex mu;
  std::vector<double> claims;
  JobOutbox outbox(Options(8, 256,
                           [&](const Solution& solution, int64_t version)
                               -> absl::StatusOr<v1::ReportSolutionResponse> {
                             absl::MutexLock lock(&mu);
                             claims.push_back(solution.normalised_return());
                             v1::ReportSolutionResponse response;
                             response.set_accepted(version == 7);
                             return response;
                           }));
  outbox.OfferSolution(WithReturn(0.3), 7);
  ASSERT_TRUE(WaitFor([&] { return outbox.stats().reports == 1; }));
  outbox.OfferSolution(WithReturn(0.2), 7);
  outbox.OfferSolution(WithReturn(0.3), 7);
  outbox.OfferSolution(WithReturn(0.5), 8);
  ASSERT_TRUE(WaitFor([&] { return outbox.stats().reports == 2; }));
  outbox.Drain(absl::Seconds(1));
  absl::MutexLock lock(&mu);
  EXPECT_THAT(claims, ElementsAre(0.3, 0.5));
  EXPECT_EQ(outbox.stats().accepted, 1);
  EXPECT_EQ(outbox.stats().best_offered, 0.5);
  ASSERT_TRUE(outbox.stats().last_report.has_value());
  EXPECT_FALSE(outbox.stats().last_report->accepted());
}

TEST_F(JobOutboxTest, RetriesAReportTheCoordinatorDidNotGet) {
  std::atomic<int> calls{0};
  JobOutbox outbox(
      Options(8, 256,
              [&](const Solution&,
                  int64_t) -> absl::StatusOr<v1::ReportSolutionResponse> {
                if (calls++ == 0)
                  return absl::UnavailableError("coordinator away");
                return v1::ReportSolutionResponse();
              }));
  outbox.OfferSolution(WithReturn(0.4), 1);
  ASSERT_TRUE(WaitFor([&] { return outbox.stats().reports == 1; }));
  EXPECT_EQ(calls.load(), 2);
}

}  // namespace
}  // namespace mmapzero::worker
