#include "worker/replay_client.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "coordinator/test_dir.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "replay/replay_server.h"
#include "replay/test_trajectories.h"

namespace mmapzero::worker {
namespace {

using ::testing::HasSubstr;

constexpr absl::Duration kDeadline = absl::Seconds(5);

// A standalone replay server on a loopback port, its tables in `dir`.
std::unique_ptr<replay::ReplayServer> StartReplay(const std::string& dir) {
  replay::ReplayServerOptions options;
  options.listen = "127.0.0.1:0";
  options.tables.data_dir = dir;
  options.tables.table.limiter.min_positions = 1;
  absl::StatusOr<std::unique_ptr<replay::ReplayServer>> server =
      replay::ReplayServer::Start(options);
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? *std::move(server) : nullptr;
}

v1::InsertTrajectoriesRequest OneGame(int steps) {
  v1::InsertTrajectoriesRequest request;
  request.set_job_id("job-000001");
  request.set_worker_id("worker-000001");
  *request.add_trajectories() = replay::MakeProto(steps);
  return request;
}

v1::SampleForReanalyseRequest SampleOne() {
  v1::SampleForReanalyseRequest request;
  request.set_job_id("job-000001");
  request.set_count(1);
  return request;
}

TEST(ReplayClientTest, WithoutAnAddressEveryCallIsUnavailable) {
  ReplayClient client("job-000001");
  EXPECT_FALSE(client.has_address());
  const absl::StatusOr<v1::InsertTrajectoriesResponse> inserted =
      client.InsertTrajectories(OneGame(3), kDeadline);
  EXPECT_TRUE(absl::IsUnavailable(inserted.status())) << inserted.status();
  EXPECT_THAT(std::string(inserted.status().message()),
              HasSubstr("job job-000001: no replay server yet"));
  EXPECT_TRUE(absl::IsUnavailable(
      client.SampleForReanalyse(SampleOne(), kDeadline).status()));
}

TEST(ReplayClientTest, CallsTheServerOfItsAddressAndFollowsItWhenItMoves) {
  coordinator::TestDir dir_a, dir_b;
  std::unique_ptr<replay::ReplayServer> a = StartReplay(dir_a.path());
  std::unique_ptr<replay::ReplayServer> b = StartReplay(dir_b.path());
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);

  ReplayClient client("job-000001", a->advertised_address());
  EXPECT_EQ(client.address(), a->advertised_address());
  const absl::StatusOr<v1::InsertTrajectoriesResponse> inserted =
      client.InsertTrajectories(OneGame(5), kDeadline);
  ASSERT_TRUE(inserted.ok()) << inserted.status();
  EXPECT_EQ(inserted->trajectory_ids_size(), 1);
  absl::StatusOr<v1::SampleForReanalyseResponse> sampled =
      client.SampleForReanalyse(SampleOne(), kDeadline);
  ASSERT_TRUE(sampled.ok()) << sampled.status();
  ASSERT_EQ(sampled->trajectories_size(), 1);
  EXPECT_EQ(sampled->trajectories(0).steps_size(), 5);

  // The job's replay lease moved: the next call goes to b, which has no
  // games of the job; its refusal keeps replay's code and names b.
  client.SetAddress(b->advertised_address());
  sampled = client.SampleForReanalyse(SampleOne(), kDeadline);
  ASSERT_FALSE(sampled.ok() && sampled->trajectories_size() > 0);
  if (!sampled.ok()) {
    EXPECT_THAT(std::string(sampled.status().message()),
                HasSubstr(absl::StrCat("replay ", b->advertised_address())));
  }
  ASSERT_TRUE(client.InsertTrajectories(OneGame(2), kDeadline).ok());
  sampled = client.SampleForReanalyse(SampleOne(), kDeadline);
  ASSERT_TRUE(sampled.ok()) << sampled.status();
  ASSERT_EQ(sampled->trajectories_size(), 1);
  EXPECT_EQ(sampled->trajectories(0).steps_size(), 2);

  client.SetAddress("");
  EXPECT_FALSE(client.has_address());
  EXPECT_TRUE(absl::IsUnavailable(
      client.SampleForReanalyse(SampleOne(), kDeadline).status()));
}

TEST(ReplayClientTest, AnAbsentServerFailsWithinTheDeadlineNamingIt) {
  coordinator::TestDir dir;
  std::unique_ptr<replay::ReplayServer> server = StartReplay(dir.path());
  ASSERT_NE(server, nullptr);
  const std::string address = server->advertised_address();
  server->Shutdown(absl::ZeroDuration());
  server.reset();

  ReplayClient client("job-000001", address);
  const absl::Time start = absl::Now();
  const absl::StatusOr<v1::InsertTrajectoriesResponse> inserted =
      client.InsertTrajectories(OneGame(3), absl::Milliseconds(500));
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  ASSERT_FALSE(inserted.ok());
  EXPECT_TRUE(absl::IsUnavailable(inserted.status()) ||
              absl::IsDeadlineExceeded(inserted.status()))
      << inserted.status();
  EXPECT_THAT(std::string(inserted.status().message()),
              HasSubstr(absl::StrCat("replay ", address, ": ")));
}

}  // namespace
}  // namespace mmapzero::worker
