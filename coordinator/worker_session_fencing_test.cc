// Fencing (worker/worker_session.h) against a real coordinator on
// loopback: a worker keeps its assignment through heartbeats and through a
// coordinator outage shorter than the lease, and drops it once the lease
// the coordinator granted has run out, so that it cannot go on training a
// job that another worker may now hold (split brain).
#include <google/protobuf/util/message_differencer.h>

#include <functional>
#include <memory>
#include <string>

#include "absl/time/clock.h"
#include "common/workload/proto_io.h"
#include "coordinator/coordinator_server.h"
#include "coordinator/test_dir.h"
#include "gtest/gtest.h"
#include "worker/worker_session.h"

namespace mmapzero::coordinator {
namespace {

constexpr absl::Duration kLeaseTtl = absl::Seconds(2);

std::unique_ptr<CoordinatorServer> StartCoordinator(const std::string& dir) {
  CoordinatorServerOptions options;
  options.listen = "127.0.0.1:0";
  options.coordinator.data_dir = dir;
  options.coordinator.heartbeat_interval = absl::Milliseconds(200);
  options.coordinator.lease_ttl = kLeaseTtl;
  absl::StatusOr<std::unique_ptr<CoordinatorServer>> server =
      CoordinatorServer::Start(options);
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? *std::move(server) : nullptr;
}

bool WaitFor(const std::function<bool()>& done, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    if (done()) return true;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return done();
}

TEST(WorkerSessionFencingTest, DropsTheAssignmentWhenTheLeaseRunsOut) {
  TestDir dir;
  std::unique_ptr<CoordinatorServer> server = StartCoordinator(dir.path());
  ASSERT_NE(server, nullptr);
  absl::StatusOr<Workload> workload =
      ReadWorkload(MMAPZERO_SOURCE_DIR "/examples/small.json");
  ASSERT_TRUE(workload.ok()) << workload.status();
  v1::SubmitJobRequest request;
  *request.mutable_workload() = *workload;
  request.set_preset("cpu");
  ASSERT_TRUE(server->coordinator().SubmitJob(request).ok());
  ASSERT_TRUE(server->coordinator().AwaitSeeded(absl::Seconds(30)));

  absl::StatusOr<std::unique_ptr<worker::WorkerSession>> session =
      worker::WorkerSession::Start(
          {.coordinator = "127.0.0.1:" + std::to_string(server->port()),
           .role = v1::WORKER_ROLE_LEARNER,
           .address = "127.0.0.1:1",
           .capacity = 1,
           .name = "fenced",
           .rpc_deadline = absl::Milliseconds(500)});
  ASSERT_TRUE(session.ok()) << session.status();
  worker::WorkerSession& worker = **session;
  ASSERT_TRUE(WaitFor([&] { return worker.Assignments().size() == 1; },
                      absl::Seconds(10)));
  // The workload came by FetchWorkload, whole.
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(
      worker.Assignments()[0].workload(), *workload));
  EXPECT_TRUE(worker.Assignments()[0].has_config());
  // Answered heartbeats renew the lease: still held after more than a TTL.
  absl::SleepFor(kLeaseTtl + absl::Milliseconds(500));
  ASSERT_EQ(worker.Assignments().size(), 1u);

  // The coordinator goes away. The assignment stays while the lease can
  // still be live, and goes within about a TTL of the last answered
  // heartbeat: by the time a coordinator could give the job to another
  // worker, this one has stopped.
  const absl::Time outage = absl::Now();
  server->Shutdown(absl::ZeroDuration());
  server.reset();
  absl::SleepFor(kLeaseTtl / 4);
  EXPECT_EQ(worker.Assignments().size(), 1u) << "dropped before the TTL";
  ASSERT_TRUE(
      WaitFor([&] { return worker.Assignments().empty(); }, 2 * kLeaseTtl));
  EXPECT_LE(absl::Now() - outage, kLeaseTtl + absl::Milliseconds(700));
}

}  // namespace
}  // namespace mmapzero::coordinator
