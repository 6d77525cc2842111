#include "replay/replay_server.h"

#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/metrics/loopback_http.h"
#include "coordinator/test_dir.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/replay.grpc.pb.h"
#include "replay/test_trajectories.h"

namespace mmapzero::replay {
namespace {

using coordinator::TestDir;
using ::testing::HasSubstr;

class ReplayServerTest : public ::testing::Test {
 protected:
  // Metrics only when a test reads them: stopping the exposer (civetweb)
  // takes up to two seconds.
  void StartServer(int max_message_bytes = 64 << 20, bool metrics = false,
                   const std::string& data_dir = "",
                   absl::Duration checkpoint_interval = absl::Seconds(60)) {
    ReplayServerOptions options;
    options.listen = "127.0.0.1:0";
    if (metrics) options.metrics_listen = "127.0.0.1:0";
    options.max_message_bytes = max_message_bytes;
    options.checkpoint_interval = checkpoint_interval;
    options.tables.data_dir = data_dir.empty() ? dir_.path() : data_dir;
    options.tables.table.limiter.min_positions = 1;
    absl::StatusOr<std::unique_ptr<ReplayServer>> server =
        ReplayServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(64 << 20);
    args.SetMaxSendMessageSize(64 << 20);
    channel_ =
        grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", server_->port()),
                                  grpc::InsecureChannelCredentials(), args);
    stub_ = v1::ReplayService::NewStub(channel_);
  }

  static void SetDeadline(grpc::ClientContext* context) {
    context->set_deadline(std::chrono::system_clock::now() +
                          std::chrono::seconds(5));
  }

  grpc::Status Insert(const v1::InsertTrajectoriesRequest& request,
                      v1::InsertTrajectoriesResponse* response) {
    grpc::ClientContext context;
    SetDeadline(&context);
    return stub_->InsertTrajectories(&context, request, response);
  }

  TestDir dir_;
  std::unique_ptr<ReplayServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::ReplayService::Stub> stub_;
};

TEST_F(ReplayServerTest, InsertSampleAndStatsOverLoopback) {
  StartServer();
  EXPECT_EQ(server_->advertised_address(),
            absl::StrCat("127.0.0.1:", server_->port()));

  v1::InsertTrajectoriesRequest insert;
  insert.set_job_id("job-000001");
  *insert.add_trajectories() = MakeProto(6);
  *insert.add_trajectories() = MakeProto(4);
  v1::InsertTrajectoriesResponse inserted;
  ASSERT_TRUE(Insert(insert, &inserted).ok());
  EXPECT_THAT(inserted.trajectory_ids(), testing::ElementsAre(1, 2));

  v1::SampleBatchRequest sample;
  sample.set_job_id("job-000001");
  sample.set_batch_size(8);
  sample.set_unroll_steps(1);
  sample.set_td_steps(1);
  v1::SampleBatchResponse batch;
  {
    grpc::ClientContext context;
    SetDeadline(&context);
    const grpc::Status status = stub_->SampleBatch(&context, sample, &batch);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  ASSERT_EQ(batch.windows_size(), 8);
  for (const v1::TrajectoryWindow& w : batch.windows()) {
    EXPECT_EQ(w.window().steps(0).buffer(), w.start_step());
    EXPECT_LE(w.window().steps_size(), 3);
  }

  v1::GetStatsRequest get;
  get.set_job_id("job-000001");
  v1::ReplayStats stats;
  {
    grpc::ClientContext context;
    SetDeadline(&context);
    ASSERT_TRUE(stub_->GetStats(&context, get, &stats).ok());
  }
  EXPECT_EQ(stats.job_id(), "job-000001");
  EXPECT_EQ(stats.trajectories(), 2);
  EXPECT_EQ(stats.positions(), 10);
  EXPECT_EQ(stats.sampled(), 8);
  EXPECT_EQ(stats.newest_parameter_version(), 7);

  get.set_job_id("job-000002");
  grpc::ClientContext context;
  SetDeadline(&context);
  const grpc::Status missing = stub_->GetStats(&context, get, &stats);
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(missing.error_message(), HasSubstr("job-000002"));
}

TEST_F(ReplayServerTest, MetricsShowTableSizesAndSampleLatency) {
  StartServer(64 << 20, /*metrics=*/true);
  ASSERT_GT(server_->metrics_port(), 0);
  v1::InsertTrajectoriesRequest insert;
  insert.set_job_id("job-000001");
  *insert.add_trajectories() = MakeProto(6);
  v1::InsertTrajectoriesResponse inserted;
  ASSERT_TRUE(Insert(insert, &inserted).ok());
  const std::string metrics =
      metrics::LoopbackHttpGet(server_->metrics_port(), "/metrics");
  EXPECT_THAT(metrics,
              HasSubstr("mmapzero_replay_positions{job=\"job-000001\"} 6"));
  EXPECT_THAT(metrics, HasSubstr("mmapzero_replay_inserted_positions_total{"
                                 "job=\"job-000001\"} 6"));
  EXPECT_THAT(metrics, HasSubstr("mmapzero_replay_rpcs_total{code=\"OK\","
                                 "method=\"InsertTrajectories\"} 1"));
  EXPECT_THAT(metrics,
              HasSubstr("mmapzero_replay_rpc_latency_seconds_count{method="
                        "\"InsertTrajectories\"} 1"));
}

// /healthz fails when the tables cannot be checkpointed (here: their
// folder cannot be made, as on a full or broken disk), naming why, and
// recovers with the next checkpoint that succeeds.
TEST_F(ReplayServerTest, HealthzFailsWhileCheckpointsFail) {
  const std::string blocker = dir_.path() + "/not-a-folder";
  { std::ofstream(blocker) << "a file where the tables' folder should be"; }
  StartServer(64 << 20, /*metrics=*/true, blocker + "/tables",
              absl::Seconds(1));
  v1::InsertTrajectoriesRequest insert;
  insert.set_job_id("job-000001");
  *insert.add_trajectories() = MakeProto(4);
  v1::InsertTrajectoriesResponse inserted;
  ASSERT_TRUE(Insert(insert, &inserted).ok());
  const int port = server_->metrics_port();
  std::string health;
  for (int i = 0; i < 100; ++i) {  // the next checkpoint, within ~1 s
    health = metrics::LoopbackHttpGet(port, "/healthz");
    if (health.find(" 503 ") != std::string::npos) break;
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_THAT(health, HasSubstr("HTTP/1.1 503"));
  EXPECT_THAT(health, HasSubstr("replay_tables FAILING: checkpoint failed"));

  std::filesystem::remove(blocker);  // the disk is back
  for (int i = 0; i < 100; ++i) {
    health = metrics::LoopbackHttpGet(port, "/healthz");
    if (health.find(" 200 ") != std::string::npos) break;
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_THAT(health, HasSubstr("HTTP/1.1 200"));
  EXPECT_THAT(health, HasSubstr("replay_tables ok"));
}

TEST_F(ReplayServerTest, OversizedInsertIsResourceExhausted) {
  StartServer(/*max_message_bytes=*/1 << 20);
  v1::InsertTrajectoriesRequest insert;
  insert.set_job_id("job-000001");
  *insert.add_trajectories() = MakeProto(3, /*occupancy_size=*/1 << 19);
  v1::InsertTrajectoriesResponse response;
  const grpc::Status status = Insert(insert, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("larger than max"));
  EXPECT_TRUE(server_->tables().AllStats().empty());
}

TEST_F(ReplayServerTest, ShutdownCheckpointsAndARestartReloads) {
  StartServer();
  v1::InsertTrajectoriesRequest insert;
  insert.set_job_id("job-000001");
  *insert.add_trajectories() = MakeProto(5);
  v1::InsertTrajectoriesResponse response;
  ASSERT_TRUE(Insert(insert, &response).ok());
  server_->Shutdown();
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir_.path()) /
                                      "replay/job-000001/table.mzr"));
  StartServer();
  ASSERT_TRUE(Insert(insert, &response).ok());
  EXPECT_THAT(response.trajectory_ids(), testing::ElementsAre(2));
  EXPECT_EQ(response.table_size(), 2);
}

}  // namespace
}  // namespace mmapzero::replay
