// The learner worker against a real coordinator on loopback and a fake
// replay server (an in-process ReplayService registered as the job's
// REPLAY worker): it takes the job's lease, waits while the replay is not
// ready, trains to the budget with its counters reaching the coordinator,
// checkpoints and withdraws the parameters when the lease goes, and a
// second learner resumes at the first one's step after a takeover, and
// every best the coordinator records reaches the learner as a
// demonstration. Last, the same against the real replay server (replay/).
#include "learner/learner_worker.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/agent/trajectory_proto.h"
#include "common/features/config_presets.h"
#include "common/game/mmap_game.h"
#include "common/game/program.h"
#include "common/model/compute_threads.h"
#include "common/rpc/grpc_server.h"
#include "common/rpc/parameter_client.h"
#include "common/training/self_play.h"
#include "common/workload/proto_io.h"
#include "coordinator/coordinator_server.h"
#include "coordinator/test_dir.h"
#include "gmock/gmock.h"
#include "proto/job.grpc.pb.h"
#include "proto/replay.grpc.pb.h"
#include "replay/replay_server.h"
#include "worker/worker_session.h"

namespace mmapzero::learner {
namespace {

using coordinator::TestDir;

MuZeroConfig SmallConfig() {
  MuZeroConfig config = features::CpuPreset();
  NetworkConfig* n = config.mutable_network();
  n->set_hidden_size(32);
  n->set_resnet_channels(8);
  n->set_mlp_hidden(32);
  n->set_value_support_size(10);
  n->set_reward_support_size(10);
  config.mutable_training()->set_batch_size(8);
  config.mutable_training()->set_checkpoint_interval(1000);
  // Each offered best is replayed before the next step.
  config.mutable_training()->set_demonstration_interval_steps(0);
  return config;
}

// A game of `length` steps with observations of the config's sizes.
agent::Trajectory Game(const MuZeroConfig& config, int length, int seed) {
  const model::ObservationShape shape = model::ShapeOf(config.features());
  agent::Trajectory t;
  for (int s = 0; s < length; ++s) {
    agent::TrajectoryStep step;
    const int preferred = (seed + s) % 3;
    step.observation.occupancy.assign(shape.time_bins * shape.byte_bins,
                                      static_cast<uint8_t>(s * 7));
    step.observation.vector.assign(shape.vector_size, 0);
    step.observation.vector[0] = static_cast<float>(preferred);
    step.buffer = s;
    step.action = static_cast<uint8_t>(preferred);
    step.legal_mask = 7;
    step.policy[preferred] = 1;
    step.reward = preferred == 0 ? 1.0f : 0.0f;
    step.root_value = 1;
    t.steps.push_back(step);
  }
  return t;
}

// SampleBatch answers FAILED_PRECONDITION `not_ready` times, then windows
// of synthetic games.
class FakeReplay final : public v1::ReplayService::Service {
 public:
  explicit FakeReplay(int not_ready) : not_ready_(not_ready) {}
  grpc::Status SampleBatch(grpc::ServerContext*,
                           const v1::SampleBatchRequest* request,
                           v1::SampleBatchResponse* response) override {
    if (calls_++ < not_ready_) {
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                          "table holds 0 of 1000 positions");
    }
    const int count = request->unroll_steps() + request->td_steps() + 1;
    for (int b = 0; b < request->batch_size(); ++b) {
      v1::TrajectoryWindow* window = response->add_windows();
      window->set_trajectory_id(b);
      agent::WindowToProto(Game(SmallConfig(), 20, b), b % 15, count,
                           window->mutable_window());
    }
    return grpc::Status::OK;
  }
  int calls() const { return calls_; }

 private:
  const int not_ready_;
  std::atomic<int> calls_{0};
};

// Real time plus an offset the test moves: leases expire without waiting.
class FakeClock {
 public:
  absl::Time Now() const {
    return absl::Now() + absl::Milliseconds(offset_ms_.load());
  }
  void Advance(absl::Duration d) { offset_ms_ += absl::ToInt64Milliseconds(d); }

 private:
  std::atomic<int64_t> offset_ms_{0};
};

class LearnerWorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    coordinator::CoordinatorServerOptions options;
    options.listen = "127.0.0.1:0";
    options.tick_interval = absl::Milliseconds(50);
    options.coordinator.data_dir = coordinator_dir_.path();
    options.coordinator.seed_solver = "drop-all";
    options.coordinator.heartbeat_interval = absl::Milliseconds(50);
    options.coordinator.lease_ttl = absl::Seconds(5);
    options.coordinator.clock = [this] { return clock_.Now(); };
    auto server = coordinator::CoordinatorServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    coordinator_ = *std::move(server);
    address_ = absl::StrCat("127.0.0.1:", coordinator_->port());
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(64 << 20);
    jobs_ = v1::JobService::NewStub(grpc::CreateCustomChannel(
        address_, grpc::InsecureChannelCredentials(), args));
  }
  void TearDown() override {
    replay_session_.reset();
    if (replay_server_) replay_server_->Shutdown();
  }

  // The fake replay, registered as the REPLAY worker of every job.
  void StartFakeReplay() {
    auto replay =
        rpc::StartGrpcServer({.services = {&replay_},
                              .service_names = {"mmapzero.v1.ReplayService"}});
    ASSERT_TRUE(replay.ok()) << replay.status();
    replay_server_ = std::move(replay->server);
    auto session = worker::WorkerSession::Start(
        {.coordinator = address_,
         .role = v1::WORKER_ROLE_REPLAY,
         .address = absl::StrCat("127.0.0.1:", replay->port),
         .name = "fake-replay"});
    ASSERT_TRUE(session.ok()) << session.status();
    replay_session_ = *std::move(session);
  }

  std::unique_ptr<LearnerWorker> StartLearner(
      absl::Duration stored_check_interval = absl::Minutes(1)) {
    LearnerWorkerOptions options;
    options.stored_check_interval = stored_check_interval;
    options.coordinator = address_;
    options.listen = "127.0.0.1:0";
    options.data_dir = data_dir_.path();
    options.name = "learner-under-test";
    options.publish_interval = 2;
    options.prefetch_batches = 2;
    options.poll_interval = absl::Milliseconds(20);
    auto worker = LearnerWorker::Start(std::move(options));
    EXPECT_TRUE(worker.ok()) << worker.status();
    return worker.ok() ? *std::move(worker) : nullptr;
  }

  std::string Submit(int64_t learner_steps) {
    absl::StatusOr<Workload> workload =
        ReadWorkload(std::string(MMAPZERO_SOURCE_DIR) + "/examples/small.json");
    EXPECT_TRUE(workload.ok()) << workload.status();
    v1::SubmitJobRequest request;
    *request.mutable_workload() = *workload;
    *request.mutable_config() = SmallConfig();
    request.mutable_budget()->set_learner_steps(learner_steps);
    v1::SubmitJobResponse response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(30));
    const grpc::Status status = jobs_->SubmitJob(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    EXPECT_TRUE(coordinator_->coordinator().AwaitSeeded(absl::Seconds(30)));
    return response.job_id();
  }

  v1::JobStatus Job(const std::string& id) {
    v1::GetJobRequest request;
    request.set_job_id(id);
    v1::JobStatus job;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(5));
    EXPECT_TRUE(jobs_->GetJob(&context, request, &job).ok());
    return job;
  }

  // Polls until `done` holds (true) or 30 s pass (false).
  static bool Eventually(const std::function<bool()>& done) {
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (absl::Now() < deadline) {
      if (done()) return true;
      absl::SleepFor(absl::Milliseconds(10));
    }
    return false;
  }

  // learner.txt's first line, "step N\n" (file checksums follow it).
  // The first line of the job's checkpoint, in learner/<job id>-<job uid>
  // (JobCheckpointDir: the coordinator gives every job a uid).
  std::string CheckpointState(const std::string& job) {
    std::string dir;
    std::error_code ignored;
    for (const auto& entry : std::filesystem::directory_iterator(
             data_dir_.path() + "/learner", ignored)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind(job + "-", 0) == 0 &&
          name.find('.') == std::string::npos) {
        dir = entry.path().string();
      }
    }
    std::ifstream in(dir + "/learner.txt");
    const std::string text(std::istreambuf_iterator<char>(in), {});
    return text.substr(0, text.find('\n') + 1);
  }

  TestDir coordinator_dir_;
  TestDir data_dir_;
  FakeClock clock_;
  std::unique_ptr<coordinator::CoordinatorServer> coordinator_;
  std::string address_;
  std::unique_ptr<v1::JobService::Stub> jobs_;
  FakeReplay replay_{/*not_ready=*/2};
  std::unique_ptr<grpc::Server> replay_server_;
  std::unique_ptr<worker::WorkerSession> replay_session_;
};

TEST(JobCheckpointDirTest, NamesTheJobsIdentityBesideItsId) {
  v1::Assignment assignment;
  assignment.set_job_id("job-000001");
  EXPECT_EQ(JobCheckpointDir("/d", assignment), "/d/learner/job-000001");
  assignment.set_job_uid("0123abcd");
  EXPECT_EQ(JobCheckpointDir("/d", assignment),
            "/d/learner/job-000001-0123abcd");
  // A new job with the same id (another uid) never shares the folder.
  v1::Assignment other = assignment;
  other.set_job_uid("4567ef01");
  EXPECT_NE(JobCheckpointDir("/d", other), JobCheckpointDir("/d", assignment));
}

TEST_F(LearnerWorkerTest, TrainsTheAssignedJobToItsBudget) {
  model::SetComputeThreads(1);
  StartFakeReplay();
  std::unique_ptr<LearnerWorker> worker = StartLearner();
  ASSERT_NE(worker, nullptr);
  const std::string id = Submit(/*learner_steps=*/6);
  ASSERT_TRUE(
      Eventually([&] { return Job(id).state() == v1::JOB_STATE_DONE; }));
  const v1::JobStatus job = Job(id);
  EXPECT_EQ(job.learner_step(), 6);
  EXPECT_EQ(job.parameter_version(), 6);
  EXPECT_EQ(job.losses().count("total"), 1u);
  EXPECT_GT(replay_.calls(), 2);  // it waited through "not ready"
  // The job is final: the lease is gone, the worker stops it, keeps the
  // checkpoint and withdraws the parameters. The supervisor drops the job
  // from its list before stopping it, so the withdrawal comes just after.
  ASSERT_TRUE(Eventually([&] { return worker->Jobs().empty(); }));
  rpc::ParameterClient client(grpc::CreateChannel(
      worker->address(), grpc::InsecureChannelCredentials()));
  EXPECT_TRUE(Eventually([&] {
    return client.LatestVersion(id).status().code() ==
           absl::StatusCode::kNotFound;
  }));
  EXPECT_EQ(CheckpointState(id), "step 6\n");
}

// A deleted job's checkpoints leave the learner's volume at its next
// check; a folder of another coordinator's job (the same id, another uid)
// stays.
TEST_F(LearnerWorkerTest, RemovesTheCheckpointsOfADeletedJob) {
  model::SetComputeThreads(1);
  StartFakeReplay();
  const std::string foreign =
      data_dir_.path() + "/learner/job-000001-" + std::string(32, '0');
  std::filesystem::create_directories(foreign);
  std::unique_ptr<LearnerWorker> worker =
      StartLearner(/*stored_check_interval=*/absl::Milliseconds(100));
  ASSERT_NE(worker, nullptr);
  const std::string id = Submit(/*learner_steps=*/2);
  ASSERT_EQ(id, "job-000001");
  ASSERT_TRUE(
      Eventually([&] { return Job(id).state() == v1::JOB_STATE_DONE; }));
  ASSERT_TRUE(Eventually([&] { return worker->Jobs().empty(); }));
  absl::SleepFor(absl::Milliseconds(300));  // checks of a job not deleted
  const std::vector<v1::StoredJob> before = ListCheckpointJobs(data_dir_.path());
  ASSERT_EQ(before.size(), 2u);  // the job's own and the foreign one
  EXPECT_NE(before[0].job_uid(), before[1].job_uid());

  v1::DeleteJobRequest remove;
  remove.set_job_id(id);
  v1::DeleteJobResponse removed;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(5));
  ASSERT_TRUE(jobs_->DeleteJob(&context, remove, &removed).ok());
  ASSERT_TRUE(Eventually(
      [&] { return ListCheckpointJobs(data_dir_.path()).size() == 1; }));
  EXPECT_EQ(ListCheckpointJobs(data_dir_.path())[0].job_uid(),
            std::string(32, '0'));
  EXPECT_TRUE(std::filesystem::exists(foreign));
}

TEST_F(LearnerWorkerTest, ServesParametersAndResumesAfterATakeover) {
  model::SetComputeThreads(1);
  StartFakeReplay();
  std::unique_ptr<LearnerWorker> first = StartLearner();
  ASSERT_NE(first, nullptr);
  const std::string id = Submit(/*learner_steps=*/0);
  ASSERT_TRUE(Eventually([&] {
    auto jobs = first->Jobs();
    return jobs.contains(id) && jobs[id].parameter_version >= 4;
  }));
  rpc::ParameterClient client(grpc::CreateChannel(
      first->address(), grpc::InsecureChannelCredentials()));
  absl::StatusOr<rpc::ParameterSnapshot> snapshot = client.Fetch(id);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  EXPECT_GE(snapshot->version, 4);
  EXPECT_EQ(snapshot->format, "torch-archive-v1");

  first->Shutdown();  // SIGTERM: checkpoints, heartbeats stop
  const std::string saved = CheckpointState(id);
  ASSERT_THAT(saved, ::testing::StartsWith("step "));
  const int64_t step = std::stoll(saved.substr(5));
  EXPECT_GE(step, 4);
  clock_.Advance(absl::Seconds(30));  // the lease expires

  std::unique_ptr<LearnerWorker> second = StartLearner();
  ASSERT_NE(second, nullptr);
  ASSERT_TRUE(Eventually([&] { return second->Jobs().contains(id); }));
  EXPECT_EQ(second->Jobs()[id].resumed_step, step);
  ASSERT_TRUE(Eventually([&] { return Job(id).learner_step() > step; }));
}

// The seed (drop-all) comes with the assignment and a better solution
// reported later comes with the next heartbeat; each becomes a
// demonstration mixed into the job's batches.
TEST_F(LearnerWorkerTest, ReplaysEveryBestOfTheJobAsADemonstration) {
  model::SetComputeThreads(1);
  StartFakeReplay();
  std::unique_ptr<LearnerWorker> worker = StartLearner();
  ASSERT_NE(worker, nullptr);
  const std::string id = Submit(/*learner_steps=*/0);
  const auto progress = [&] {
    auto jobs = worker->Jobs();
    return jobs.contains(id) ? jobs[id] : LearnerProgress();
  };
  ASSERT_TRUE(Eventually([&] {
    return progress().demonstrations.replayed == 1 &&
           progress().demonstrations.mixed_positions > 0;
  }));
  EXPECT_DOUBLE_EQ(progress().demonstrations.best_offered, 0.0);  // drop-all

  absl::StatusOr<Workload> workload =
      ReadWorkload(std::string(MMAPZERO_SOURCE_DIR) + "/examples/small.json");
  ASSERT_TRUE(workload.ok()) << workload.status();
  auto program = game::Program::Create(*workload);
  ASSERT_TRUE(program.ok()) << program.status();
  game::MMapGame game(*program);
  while (!game.IsTerminal()) {  // fast memory first
    const uint8_t mask = game.LegalActionMask();
    game.ApplyAction(mask & 2   ? game::Action::kNoCopy
                     : mask & 1 ? game::Action::kCopy
                                : game::Action::kDrop);
  }
  v1::ReportSolutionRequest report;
  report.set_job_id(id);
  *report.mutable_solution() = game.ToSolution();
  absl::StatusOr<v1::ReportSolutionResponse> reported =
      coordinator_->coordinator().ReportSolution(report);
  ASSERT_TRUE(reported.ok()) << reported.status();
  ASSERT_TRUE(reported->accepted()) << reported->reason();
  ASSERT_TRUE(
      Eventually([&] { return progress().demonstrations.replayed == 2; }));
  EXPECT_DOUBLE_EQ(progress().demonstrations.best_offered,
                   reported->validated_normalised_return());
  EXPECT_TRUE(progress().demonstrations.error.empty());
  // Held: the coordinator sends it no more, so no third one comes.
  absl::SleepFor(absl::Milliseconds(300));
  EXPECT_EQ(progress().demonstrations.replayed, 2);
}

// The real replay server (replay/), registered with the coordinator: the
// test inserts games as an actor would, the learner samples them through
// its prefetch queue and trains the job to its budget.
TEST_F(LearnerWorkerTest, TrainsFromARealReplayServer) {
  model::SetComputeThreads(1);
  replay::ReplayServerOptions options;
  options.listen = "127.0.0.1:0";
  options.coordinator = address_;
  options.tables.table.limiter.min_positions = 50;
  auto replay_server = replay::ReplayServer::Start(options);
  ASSERT_TRUE(replay_server.ok()) << replay_server.status();
  std::unique_ptr<LearnerWorker> worker = StartLearner();
  ASSERT_NE(worker, nullptr);
  const std::string id = Submit(/*learner_steps=*/5);

  auto replay = v1::ReplayService::NewStub(
      grpc::CreateChannel((*replay_server)->advertised_address(),
                          grpc::InsecureChannelCredentials()));
  v1::InsertTrajectoriesRequest insert;
  insert.set_job_id(id);
  for (int g = 0; g < 4; ++g) {
    agent::TrajectoryToProto(Game(SmallConfig(), 20, g),
                             insert.add_trajectories());
  }
  ASSERT_TRUE(Eventually([&] {  // once the replay server has the job
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(5));
    v1::InsertTrajectoriesResponse response;
    return replay->InsertTrajectories(&context, insert, &response).ok();
  }));
  ASSERT_TRUE(
      Eventually([&] { return Job(id).state() == v1::JOB_STATE_DONE; }));
  EXPECT_EQ(Job(id).learner_step(), 5);
  v1::GetStatsRequest request;
  request.set_job_id(id);
  v1::ReplayStats stats;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(5));
  ASSERT_TRUE(replay->GetStats(&context, request, &stats).ok());
  EXPECT_GE(stats.sampled(), 5 * SmallConfig().training().batch_size());
  worker.reset();
  (*replay_server)->Shutdown();
}

}  // namespace
}  // namespace mmapzero::learner
