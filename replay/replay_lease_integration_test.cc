// Writes to a job need the writer's lease, under mutual TLS: a real
// coordinator and a real replay server on loopback, with certificates from
// a CA made for the test, and a real actor session that takes a lease on
// the job. Its lease ticket lets it insert trajectories and report
// solutions; the same worker certificate without a ticket, with a ticket
// for another job or role, or with one whose lease has ended cannot; an
// admin may.
#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/rpc/client_channel.h"
#include "common/security/lease_ticket.h"
#include "common/security/local_certificates.h"
#include "common/security/test_certificates.h"
#include "common/security/transport_security.h"
#include "common/workload/proto_io.h"
#include "coordinator/coordinator_server.h"
#include "coordinator/test_deadline.h"
#include "coordinator/test_dir.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/job.grpc.pb.h"
#include "proto/replay.grpc.pb.h"
#include "proto/worker.grpc.pb.h"
#include "replay/replay_server.h"
#include "replay/test_trajectories.h"
#include "worker/wait_for.h"
#include "worker/worker_session.h"

namespace mmapzero::replay {
namespace {

using coordinator::Deadlined;
using coordinator::TestDir;
using ::testing::HasSubstr;

class ReplayLeaseIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Every server and session of this process speaks as the worker.
    security::SetProcessTransportSecurity(Identity("worker"));

    coordinator::CoordinatorServerOptions coordinator_options;
    coordinator_options.listen = "127.0.0.1:0";
    coordinator_options.coordinator.data_dir = dir_.path();
    coordinator_options.coordinator.heartbeat_interval = absl::Milliseconds(50);
    coordinator_options.coordinator.lease_ttl = absl::Seconds(10);
    coordinator_options.coordinator.seed_solver = "drop-all";
    auto coordinator =
        coordinator::CoordinatorServer::Start(coordinator_options);
    ASSERT_TRUE(coordinator.ok()) << coordinator.status();
    coordinator_ = *std::move(coordinator);
    address_ = absl::StrCat("127.0.0.1:", coordinator_->port());

    ReplayServerOptions replay_options;
    replay_options.listen = "127.0.0.1:0";
    replay_options.coordinator = address_;
    replay_options.tables.data_dir = replay_dir_.path();
    auto replay = ReplayServer::Start(replay_options);
    ASSERT_TRUE(replay.ok()) << replay.status();
    replay_ = *std::move(replay);
  }

  void TearDown() override {
    if (actor_ != nullptr) actor_->Stop();
    if (replay_ != nullptr) replay_->Shutdown();
    if (coordinator_ != nullptr) coordinator_->Shutdown();
    security::SetProcessTransportSecurity(security::TransportSecurity());
  }

  security::TransportSecurity Identity(const std::string& holder) {
    return certificates_.Identity(holder);
  }

  std::string Submit() {
    absl::StatusOr<Workload> workload =
        ReadWorkload(std::string(MMAPZERO_SOURCE_DIR) + "/examples/small.json");
    EXPECT_TRUE(workload.ok());
    v1::SubmitJobRequest request;
    *request.mutable_workload() = *workload;
    request.set_preset("cpu");
    auto stub = v1::JobService::NewStub(
        rpc::MakeClientChannel(address_, Identity("client")));
    v1::SubmitJobResponse response;
    const grpc::Status status =
        stub->SubmitJob(Deadlined().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.job_id();
  }

  grpc::Status Insert(const std::string& holder, const std::string& job_id,
                      const v1::LeaseTicket& ticket) {
    v1::InsertTrajectoriesRequest request;
    request.set_job_id(job_id);
    request.set_worker_id(ticket.worker_id());
    *request.add_trajectories() = MakeProto(/*steps=*/3);
    *request.mutable_lease_ticket() = ticket;
    auto stub = v1::ReplayService::NewStub(rpc::MakeClientChannel(
        replay_->advertised_address(), Identity(holder)));
    v1::InsertTrajectoriesResponse response;
    return stub->InsertTrajectories(Deadlined().get(), request, &response);
  }

  grpc::Status Report(const std::string& job_id,
                      const v1::LeaseTicket& ticket) {
    v1::GetBestSolutionRequest best_request;
    best_request.set_job_id(job_id);
    const absl::StatusOr<v1::GetBestSolutionResponse> best =
        coordinator_->coordinator().GetBestSolution(best_request);
    EXPECT_TRUE(best.ok()) << best.status();
    v1::ReportSolutionRequest request;
    request.set_job_id(job_id);
    request.set_worker_id(ticket.worker_id());
    *request.mutable_solution() = best->solution();
    *request.mutable_lease_ticket() = ticket;
    auto stub = v1::WorkerService::NewStub(
        rpc::MakeClientChannel(address_, Identity("worker")));
    v1::ReportSolutionResponse response;
    return stub->ReportSolution(Deadlined().get(), request, &response);
  }

  TestDir dir_;
  TestDir replay_dir_;
  security::TestCertificates certificates_{dir_.path() + "/tls"};
  std::unique_ptr<coordinator::CoordinatorServer> coordinator_;
  std::string address_;
  std::unique_ptr<ReplayServer> replay_;
  std::unique_ptr<worker::WorkerSession> actor_;
};

TEST_F(ReplayLeaseIntegrationTest, OnlyTheLeaseHolderWritesToAJob) {
  const std::string first = Submit();
  const std::string second = Submit();
  ASSERT_FALSE(first.empty());
  ASSERT_FALSE(second.empty());
  ASSERT_TRUE(coordinator_->coordinator().AwaitSeeded(absl::Seconds(30)));
  // A learner for both jobs makes them run.
  auto workers = v1::WorkerService::NewStub(
      rpc::MakeClientChannel(address_, Identity("worker")));
  v1::RegisterRequest learner;
  learner.set_role(v1::WORKER_ROLE_LEARNER);
  learner.set_address("learner:1");
  learner.set_capacity(2);
  v1::RegisterResponse registered;
  ASSERT_TRUE(
      workers->Register(Deadlined().get(), learner, &registered).ok());
  EXPECT_TRUE(registered.lease_key().empty());  // only replay servers get it
  v1::HeartbeatRequest beat;
  beat.set_worker_id(registered.worker_id());
  beat.set_worker_secret(registered.worker_secret());
  v1::HeartbeatResponse answer;
  ASSERT_TRUE(workers->Heartbeat(Deadlined().get(), beat, &answer).ok());
  ASSERT_EQ(answer.assignments_size(), 2);
  // The replay server takes both jobs, and has the lease key.
  ASSERT_TRUE(worker::WaitFor(
      [&] { return replay_->tables().AllStats().size() == 2; }));
  ASSERT_EQ(replay_->session()->lease_key().size(),
            static_cast<size_t>(security::kLeaseKeyBytes));

  // One actor, one job at a time: a lease on one of them.
  worker::WorkerSessionOptions actor_options;
  actor_options.coordinator = address_;
  actor_options.role = v1::WORKER_ROLE_ACTOR;
  actor_options.name = "lease-test-actor";
  auto actor = worker::WorkerSession::Start(actor_options);
  ASSERT_TRUE(actor.ok()) << actor.status();
  actor_ = *std::move(actor);
  ASSERT_TRUE(worker::WaitFor([&] { return actor_->Assignments().size() == 1; }));
  const std::string job = actor_->Assignments()[0].job_id();
  const std::string other_job = job == first ? second : first;
  const v1::LeaseTicket ticket = actor_->LeaseTicket(job);
  EXPECT_EQ(ticket.worker_id(), actor_->worker_id());
  EXPECT_EQ(ticket.role(), v1::WORKER_ROLE_ACTOR);
  EXPECT_TRUE(actor_->LeaseTicket(other_job).mac().empty());

  // The holder writes; the session attaches its ticket to reports itself.
  const grpc::Status held = Insert("worker", job, ticket);
  EXPECT_TRUE(held.ok()) << held.error_message();
  int64_t held_trajectories = 0;
  for (const JobReplayStats& table : replay_->tables().AllStats()) {
    held_trajectories += table.stats.trajectories();
  }
  EXPECT_EQ(held_trajectories, 1);
  const grpc::Status reported = Report(job, ticket);
  EXPECT_TRUE(reported.ok()) << reported.error_message();

  // The same worker certificate without the job's lease cannot.
  const grpc::Status bare = Insert("worker", job, v1::LeaseTicket());
  EXPECT_EQ(bare.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(bare.error_message(), HasSubstr("lease_ticket: required"));
  const grpc::Status elsewhere = Insert("worker", other_job, ticket);
  EXPECT_EQ(elsewhere.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(elsewhere.error_message(),
              HasSubstr("a lease on " + job + ", not on job_id " + other_job));
  v1::LeaseTicket stretched = ticket;
  stretched.set_expiry_unix_ms(ticket.expiry_unix_ms() + 86'400'000);
  EXPECT_EQ(Insert("worker", job, stretched).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Report(job, v1::LeaseTicket()).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Report(other_job, ticket).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);

  // Refreshed targets come from a reanalyse lease, not an actor's.
  auto replay = v1::ReplayService::NewStub(rpc::MakeClientChannel(
      replay_->advertised_address(), Identity("worker")));
  v1::UpdateTargetsRequest update;
  update.set_job_id(job);
  *update.mutable_lease_ticket() = ticket;
  v1::UpdateTargetsResponse updated;
  const grpc::Status actor_updates =
      replay->UpdateTargets(Deadlined().get(), update, &updated);
  EXPECT_EQ(actor_updates.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(actor_updates.error_message(),
              HasSubstr("WORKER_ROLE_ACTOR lease does not write here"));

  // A lease that ended more than its grace ago is lost, not forged: the
  // writer is told so and takes its assignments from its next heartbeat.
  v1::LeaseTicket ended = ticket;
  ended.set_expiry_unix_ms(ticket.expiry_unix_ms() - 60'000);
  ended.set_grace_ms(10'000);
  security::SignLeaseTicket(replay_->session()->lease_key(), ended);
  const grpc::Status lost = Insert("worker", job, ended);
  EXPECT_EQ(lost.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(lost.error_message(), HasSubstr("lease on " + job + " ended"));
  EXPECT_EQ(Report(job, ended).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);

  // An admin writes without a lease.
  const grpc::Status admin = Insert("admin", other_job, v1::LeaseTicket());
  EXPECT_TRUE(admin.ok()) << admin.error_message();
}

}  // namespace
}  // namespace mmapzero::replay
