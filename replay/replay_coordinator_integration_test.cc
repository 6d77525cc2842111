// The replay server as a REPLAY worker of a real coordinator on loopback:
// it registers its address, is given the running job, sizes the job's
// table from the job's config, and the job's actors learn its address.
// A few hundred milliseconds of heartbeats: labelled "integration".
#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/workload/proto_io.h"
#include "coordinator/coordinator_server.h"
#include "coordinator/test_dir.h"
#include "gtest/gtest.h"
#include "proto/job.grpc.pb.h"
#include "proto/worker.grpc.pb.h"
#include "replay/replay_server.h"
#include "replay/test_trajectories.h"

namespace mmapzero::replay {
namespace {

using coordinator::TestDir;

std::unique_ptr<grpc::ClientContext> Deadlined() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() +
                        std::chrono::seconds(30));
  return context;
}

// Registers a worker of `role` and heartbeats once; its worker id.
std::string Join(v1::WorkerService::Stub& workers, v1::WorkerRole role,
                 const std::string& address, v1::HeartbeatResponse* heartbeat) {
  v1::RegisterRequest request;
  request.set_role(role);
  request.set_address(address);
  v1::RegisterResponse registered;
  EXPECT_TRUE(workers.Register(Deadlined().get(), request, &registered).ok());
  v1::HeartbeatRequest beat;
  beat.set_worker_id(registered.worker_id());
  EXPECT_TRUE(workers.Heartbeat(Deadlined().get(), beat, heartbeat).ok());
  return registered.worker_id();
}

TEST(ReplayCoordinatorIntegrationTest, TakesTheRunningJobAndSizesItsTable) {
  TestDir coordinator_dir;
  TestDir replay_dir;
  coordinator::CoordinatorServerOptions coordinator_options;
  coordinator_options.listen = "127.0.0.1:0";
  coordinator_options.coordinator.data_dir = coordinator_dir.path();
  coordinator_options.coordinator.heartbeat_interval = absl::Milliseconds(50);
  coordinator_options.coordinator.lease_ttl = absl::Seconds(10);
  auto coordinator = coordinator::CoordinatorServer::Start(coordinator_options);
  ASSERT_TRUE(coordinator.ok()) << coordinator.status();
  const std::string address =
      absl::StrCat("127.0.0.1:", (*coordinator)->port());
  auto channel =
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto jobs = v1::JobService::NewStub(channel);
  auto workers = v1::WorkerService::NewStub(channel);

  absl::StatusOr<Workload> workload =
      ReadWorkload(std::string(MMAPZERO_SOURCE_DIR) + "/examples/small.json");
  ASSERT_TRUE(workload.ok()) << workload.status();
  v1::SubmitJobRequest submit;
  *submit.mutable_workload() = *workload;
  submit.set_preset("cpu");  // replay_size 2000
  v1::SubmitJobResponse submitted;
  ASSERT_TRUE(jobs->SubmitJob(Deadlined().get(), submit, &submitted).ok());
  ASSERT_TRUE((*coordinator)->coordinator().AwaitSeeded(absl::Seconds(30)));
  const std::string job = submitted.job_id();
  v1::HeartbeatResponse heartbeat;
  Join(*workers, v1::WORKER_ROLE_LEARNER, "learner:1", &heartbeat);
  ASSERT_EQ(heartbeat.assignments_size(), 1);  // the job runs now

  ReplayServerOptions options;
  options.listen = "127.0.0.1:0";
  options.coordinator = address;
  options.tables.data_dir = replay_dir.path();
  options.tables.default_capacity = 10;
  auto replay = ReplayServer::Start(options);
  ASSERT_TRUE(replay.ok()) << replay.status();

  // Assignments arrive with the heartbeats; the table follows within the
  // server's 200 ms poll.
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  std::vector<JobReplayStats> stats;
  while (absl::Now() < deadline) {
    stats = (*replay)->tables().AllStats();
    if (!stats.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].stats.job_id(), job);
  EXPECT_EQ(stats[0].stats.capacity(), 2000);

  Join(*workers, v1::WORKER_ROLE_ACTOR, "", &heartbeat);
  ASSERT_EQ(heartbeat.assignments_size(), 1);
  EXPECT_EQ(heartbeat.assignments(0).replay_address(),
            (*replay)->advertised_address());
  (*replay)->Shutdown();
  (*coordinator)->Shutdown();
}

}  // namespace
}  // namespace mmapzero::replay
