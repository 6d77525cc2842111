// The coordinator as a real gRPC server on a free loopback port with a real
// client, its SQLite file in a temporary folder: submission seeded by the
// heuristic, listing, cancelling, errors with clear statuses that change
// nothing, verified solution reports, restarts, leases that expire and move,
// budgets, the watch stream, health checking and metrics.
#include "coordinator/coordinator_server.h"

#include <arpa/inet.h>
#include <google/protobuf/util/message_differencer.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "common/base/read_file.h"
#include "common/features/config_presets.h"
#include "common/metrics/loopback_http.h"
#include "common/rpc/health_check_client.h"
#include "common/rpc/parameter_client.h"
#include "common/validate/latency_simulator.h"
#include "common/validate/validator.h"
#include "common/workload/proto_io.h"
#include "coordinator/test_deadline.h"
#include "coordinator/test_dir.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "proto/job.grpc.pb.h"
#include "proto/worker.grpc.pb.h"

namespace mmapzero::coordinator {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;

const std::string kSmall =
    std::string(MMAPZERO_SOURCE_DIR) + "/examples/small.json";

// Real time plus an offset the test moves forward: leases and budgets
// expire without waiting.
class FakeClock {
 public:
  absl::Time Now() const {
    return absl::Now() + absl::Milliseconds(offset_ms_.load());
  }
  void Advance(absl::Duration d) { offset_ms_ += absl::ToInt64Milliseconds(d); }

 private:
  std::atomic<int64_t> offset_ms_{0};
};

class CoordinatorServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<Workload> workload = ReadWorkload(kSmall);
    ASSERT_TRUE(workload.ok()) << workload.status();
    workload_ = *workload;
    StartServer();
  }

  // Metrics only when a test reads them: stopping the exposer (civetweb)
  // takes up to two seconds.
  void StartServer(const std::string& seed_solver = "heuristic",
                   bool metrics = false) {
    CoordinatorServerOptions options;
    options.listen = "127.0.0.1:0";
    if (metrics) options.metrics_listen = "127.0.0.1:0";
    options.tick_interval = absl::Hours(1);  // the tests call Tick()
    options.watch.min_interval = absl::Milliseconds(1);
    options.coordinator.data_dir = dir_.path();
    options.coordinator.seed_solver = seed_solver;
    options.coordinator.heuristic_budget = seed_budget_;
    options.coordinator.max_seed_solves = max_seed_solves_;
    options.coordinator.max_finished_jobs = max_finished_jobs_;
    options.coordinator.finished_job_retention = retention_;
    options.coordinator.heartbeat_interval = absl::Seconds(1);
    options.coordinator.lease_ttl = absl::Seconds(5);
    options.coordinator.clock = [this] { return clock_.Now(); };
    auto server = CoordinatorServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(64 << 20);
    auto channel = grpc::CreateCustomChannel(
        "127.0.0.1:" + std::to_string(server_->port()),
        grpc::InsecureChannelCredentials(), args);
    jobs_ = v1::JobService::NewStub(channel);
    workers_ = v1::WorkerService::NewStub(channel);
    channel_ = channel;
  }

  void StopServer() {
    jobs_.reset();
    workers_.reset();
    server_.reset();
  }

  void RestartServer(const std::string& seed_solver = "heuristic",
                     bool metrics = false) {
    StopServer();
    StartServer(seed_solver, metrics);
  }

  v1::SubmitJobRequest SmallRequest() {
    v1::SubmitJobRequest request;
    request.set_name("small");
    *request.mutable_workload() = workload_;
    request.set_preset("cpu");
    request.mutable_budget()->set_wall_seconds(600);
    return request;
  }

  // Submits and waits for the job's seed solve, as mmapctl does.
  std::string Submit(v1::SubmitJobRequest request) {
    v1::SubmitJobResponse response;
    const grpc::Status status =
        jobs_->SubmitJob(Deadlined().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    if (status.ok()) AwaitSeeded(response.job_id());
    return response.job_id();
  }

  // The job's status once it has left SEEDING (real time: the seed solve
  // runs on the coordinator's own threads).
  v1::JobStatus AwaitSeeded(const std::string& id) {
    const absl::Time give_up = absl::Now() + absl::Seconds(60);
    v1::JobStatus job = Job(id);
    while (job.state() == v1::JOB_STATE_SEEDING && absl::Now() < give_up) {
      absl::SleepFor(absl::Milliseconds(20));
      job = Job(id);
    }
    EXPECT_NE(job.state(), v1::JOB_STATE_SEEDING) << id;
    return job;
  }
  std::string Submit() { return Submit(SmallRequest()); }

  grpc::Status GetJob(const std::string& id, v1::JobStatus* job) {
    v1::GetJobRequest request;
    request.set_job_id(id);
    return jobs_->GetJob(Deadlined().get(), request, job);
  }

  v1::JobStatus Job(const std::string& id) {
    v1::JobStatus job;
    const grpc::Status status = GetJob(id, &job);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return job;
  }

  Solution Best(const std::string& id) {
    v1::GetBestSolutionRequest request;
    request.set_job_id(id);
    v1::GetBestSolutionResponse response;
    const grpc::Status status =
        jobs_->GetBestSolution(Deadlined().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.solution();
  }

  int ListedJobs() {
    v1::ListJobsResponse response;
    const grpc::Status status =
        jobs_->ListJobs(Deadlined().get(), v1::ListJobsRequest(), &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.jobs_size();
  }

  std::string Register(v1::WorkerRole role, const std::string& address = "",
                       int capacity = 1) {
    v1::RegisterRequest request;
    request.set_role(role);
    request.set_address(address);
    request.set_capacity(capacity);
    v1::RegisterResponse response;
    const grpc::Status status =
        workers_->Register(Deadlined().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.heartbeat_interval_ms(), 1000);
    EXPECT_EQ(response.lease_ttl_ms(), 5000);
    return response.worker_id();
  }

  v1::HeartbeatResponse Heartbeat(const std::string& worker,
                                  std::vector<v1::JobCounters> jobs = {}) {
    v1::HeartbeatRequest request;
    request.set_worker_id(worker);
    for (v1::JobCounters& counters : jobs) {
      *request.add_jobs() = std::move(counters);
    }
    v1::HeartbeatResponse response;
    const grpc::Status status =
        workers_->Heartbeat(Deadlined().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  v1::ReportSolutionResponse Report(const std::string& job_id,
                                    const Solution& solution) {
    v1::ReportSolutionRequest request;
    request.set_job_id(job_id);
    *request.mutable_solution() = solution;
    v1::ReportSolutionResponse response;
    const grpc::Status status =
        workers_->ReportSolution(Deadlined().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  TestDir dir_;
  FakeClock clock_;
  absl::Duration seed_budget_ = absl::Seconds(10);
  int max_seed_solves_ = 2;
  int max_finished_jobs_ = 0;
  absl::Duration retention_ = absl::ZeroDuration();
  Workload workload_;
  std::unique_ptr<CoordinatorServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::JobService::Stub> jobs_;
  std::unique_ptr<v1::WorkerService::Stub> workers_;
};

TEST_F(CoordinatorServerTest, SubmittedJobIsQueuedWithAValidHeuristicBest) {
  const std::string id = Submit();
  EXPECT_EQ(id, "job-000001");
  const v1::JobStatus job = Job(id);
  EXPECT_EQ(job.state(), v1::JOB_STATE_QUEUED);
  EXPECT_EQ(job.name(), "small");
  EXPECT_EQ(job.workload_name(), workload_.name());
  EXPECT_EQ(job.num_buffers(), workload_.buffers_size());
  EXPECT_EQ(job.preset(), "cpu");
  EXPECT_EQ(job.budget().wall_seconds(), 600);
  EXPECT_GT(job.created_unix_ms(), 0);
  EXPECT_EQ(job.best_solver(), "heuristic");
  EXPECT_GT(job.best_normalised_return(), 0.0);
  EXPECT_DOUBLE_EQ(job.best_normalised_return(),
                   job.heuristic_normalised_return());
  // Latency, what users read: the seed's simulated latency is the best's.
  EXPECT_GT(job.heuristic_latency_us(), 0.0);
  EXPECT_DOUBLE_EQ(job.best_latency_us(), job.heuristic_latency_us());

  const Solution best = Best(id);
  const validate::ValidationReport report =
      validate::ValidateSolution(workload_, best);
  EXPECT_TRUE(report.ok);
  const absl::StatusOr<validate::SimulationResult> simulated =
      validate::SimulateSolution(workload_, best);
  ASSERT_TRUE(simulated.ok()) << simulated.status();
  EXPECT_DOUBLE_EQ(best.simulated_latency_us(), simulated->latency_us);
  EXPECT_DOUBLE_EQ(job.best_latency_us(), simulated->latency_us);
  EXPECT_DOUBLE_EQ(report.normalised_return, best.normalised_return());
}

TEST_F(CoordinatorServerTest, SubmittedStartIsTheFirstBestOnlyWhenBetter) {
  const Solution heuristic = Best(Submit());  // seeded by the heuristic
  RestartServer("drop-all");
  const int jobs_before = ListedJobs();

  // Better than the drop-all seed: the job starts from it, named "start".
  v1::SubmitJobRequest request = SmallRequest();
  *request.mutable_start() = heuristic;
  request.mutable_start()->set_normalised_return(0.0);  // claims not trusted
  const std::string id = Submit(request);
  const v1::JobStatus job = Job(id);
  EXPECT_DOUBLE_EQ(job.heuristic_normalised_return(), 0.0);
  EXPECT_DOUBLE_EQ(job.best_normalised_return(), heuristic.normalised_return());
  // The start is the seed stage's (the submitted start), kept in the job.
  EXPECT_EQ(job.seed_stage_solver(), heuristic.solver().name());
  EXPECT_DOUBLE_EQ(job.seed_stage_normalised_return(),
                   heuristic.normalised_return());
  EXPECT_GT(job.seed_stage_latency_us(), 0.0);
  EXPECT_EQ(job.start_solver(), job.seed_stage_solver());
  EXPECT_DOUBLE_EQ(job.start_latency_us(), job.seed_stage_latency_us());
  EXPECT_DOUBLE_EQ(job.agent_speedup(), 1.0);
  v1::GetBestSolutionRequest best_request;
  best_request.set_job_id(id);
  v1::GetBestSolutionResponse best;
  ASSERT_TRUE(
      jobs_->GetBestSolution(Deadlined().get(), best_request, &best).ok());
  EXPECT_EQ(best.worker_id(), "start");
  EXPECT_TRUE(validate::ValidateSolution(workload_, best.solution()).ok);

  // Not better than the seed: the seed stays the best.
  RestartServer("heuristic");
  request.mutable_start()->mutable_decisions()->Clear();
  for (const BufferDecision& kept : heuristic.decisions()) {  // drop all
    BufferDecision* decision = request.mutable_start()->add_decisions();
    decision->set_buffer_id(kept.buffer_id());
    decision->set_action(DROP);
  }
  const std::string worse = Submit(request);
  best_request.set_job_id(worse);
  ASSERT_TRUE(
      jobs_->GetBestSolution(Deadlined().get(), best_request, &best).ok());
  EXPECT_EQ(best.worker_id(), "");
  EXPECT_DOUBLE_EQ(best.solution().normalised_return(),
                   heuristic.normalised_return());
  EXPECT_EQ(Job(worse).start_solver(), "heuristic");  // the seed was faster
  EXPECT_DOUBLE_EQ(Job(worse).seed_stage_normalised_return(), 0.0);

  // Invalid: refused, naming the field, and no job is made.
  *request.mutable_start() = heuristic;
  request.mutable_start()->mutable_decisions()->RemoveLast();
  v1::SubmitJobResponse response;
  const grpc::Status status =
      jobs_->SubmitJob(Deadlined().get(), request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("start: "));
  EXPECT_EQ(ListedJobs(), jobs_before + 2);
}

// The job exists from the submit's answer, which does not wait for the
// seed solve (here a 1.5-s BRKGA run): once, a submit held its caller for
// the whole solve, and a killed `mmapctl submit` still made its job when
// the solve ended. Until seeded, the job has no best, takes no report and
// no worker takes it.
TEST_F(CoordinatorServerTest, SubmitAnswersAtOnceAndTheJobIsSeededAfter) {
  seed_budget_ = absl::Milliseconds(1500);
  RestartServer("brkga");
  v1::SubmitJobResponse response;
  const absl::Time start = absl::Now();
  ASSERT_TRUE(
      jobs_->SubmitJob(Deadlined().get(), SmallRequest(), &response).ok());
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
  const std::string id = response.job_id();
  EXPECT_EQ(response.job().state(), v1::JOB_STATE_SEEDING);
  EXPECT_DOUBLE_EQ(response.job().heuristic_normalised_return(), 0.0);
  EXPECT_EQ(response.job().best_solver(), "");

  v1::GetBestSolutionRequest best_request;
  best_request.set_job_id(id);
  v1::GetBestSolutionResponse best;
  const grpc::Status no_best =
      jobs_->GetBestSolution(Deadlined().get(), best_request, &best);
  EXPECT_EQ(no_best.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(no_best.error_message(), HasSubstr("seeding"));
  v1::ReportSolutionRequest report;
  report.set_job_id(id);
  *report.mutable_solution() = Solution();
  v1::ReportSolutionResponse reported;
  EXPECT_EQ(workers_->ReportSolution(Deadlined().get(), report, &reported)
                .error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  const std::string learner = Register(v1::WORKER_ROLE_LEARNER, "127.0.0.1:1");
  EXPECT_EQ(Heartbeat(learner).assignments_size(), 0);

  const v1::JobStatus seeded = AwaitSeeded(id);
  EXPECT_EQ(seeded.state(), v1::JOB_STATE_QUEUED);
  EXPECT_GT(seeded.heuristic_normalised_return(), 0.0);
  EXPECT_DOUBLE_EQ(seeded.best_normalised_return(),
                   seeded.heuristic_normalised_return());
  EXPECT_EQ(seeded.best_solver(), "brkga");
  EXPECT_TRUE(validate::ValidateSolution(workload_, Best(id)).ok);
  EXPECT_EQ(Heartbeat(learner).assignments_size(), 1);
}

// A worker's assignment carries its workload's size and CRC32C, never the
// workload: the job's workers fetch it in chunks, others may not.
TEST_F(CoordinatorServerTest, WorkersFetchTheirJobsWorkloadInChunks) {
  const std::string id = Submit();
  const std::string learner = Register(v1::WORKER_ROLE_LEARNER, "127.0.0.1:1");
  const v1::HeartbeatResponse heartbeat = Heartbeat(learner);
  ASSERT_EQ(heartbeat.assignments_size(), 1);
  const v1::Assignment& assignment = heartbeat.assignments(0);
  EXPECT_FALSE(assignment.has_workload());
  EXPECT_TRUE(assignment.has_config());
  const int64_t size = static_cast<int64_t>(workload_.ByteSizeLong());
  EXPECT_EQ(assignment.workload_bytes(), size);

  const auto fetch = [&](const std::string& worker, int chunk_bytes,
                         std::vector<v1::WorkloadChunk>* chunks) {
    v1::FetchWorkloadRequest request;
    request.set_worker_id(worker);
    request.set_job_id(id);
    request.set_max_chunk_bytes(chunk_bytes);
    auto context = Deadlined();
    auto reader = workers_->FetchWorkload(context.get(), request);
    v1::WorkloadChunk chunk;
    while (reader->Read(&chunk)) chunks->push_back(chunk);
    return reader->Finish();
  };
  std::vector<v1::WorkloadChunk> chunks;
  ASSERT_TRUE(fetch(learner, 1000, &chunks).ok());
  ASSERT_GT(chunks.size(), 1u);
  std::string bytes;
  for (const v1::WorkloadChunk& chunk : chunks) {
    EXPECT_EQ(chunk.offset(), static_cast<int64_t>(bytes.size()));
    EXPECT_EQ(chunk.total_bytes(), size);
    EXPECT_LE(chunk.data().size(), 1000u);
    bytes += chunk.data();
  }
  EXPECT_EQ(rpc::Crc32c(bytes), assignment.workload_crc32c());
  Workload fetched;
  ASSERT_TRUE(fetched.ParseFromString(bytes));
  EXPECT_TRUE(MessageDifferencer::Equals(fetched, workload_));

  // A worker without a lease on the job, an unknown one, a bad chunk size.
  const std::string other = Register(v1::WORKER_ROLE_LEARNER, "127.0.0.1:2");
  chunks.clear();
  const grpc::Status denied = fetch(other, 0, &chunks);
  EXPECT_EQ(denied.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(denied.error_message(), HasSubstr("holds no lease on " + id));
  EXPECT_TRUE(chunks.empty());
  EXPECT_EQ(fetch("worker-000099", 0, &chunks).error_code(),
            grpc::StatusCode::NOT_FOUND);
  const grpc::Status bad_size = fetch(learner, -1, &chunks);
  EXPECT_EQ(bad_size.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(bad_size.error_message(), HasSubstr("max_chunk_bytes"));
}

// ... and its seed solve (BRKGA for a minute here) stops at once, giving
// its core back.
TEST_F(CoordinatorServerTest, AJobCancelledWhileSeedingStaysCancelled) {
  seed_budget_ = absl::Seconds(60);
  RestartServer("brkga");
  v1::SubmitJobResponse response;
  ASSERT_TRUE(
      jobs_->SubmitJob(Deadlined().get(), SmallRequest(), &response).ok());
  v1::CancelJobRequest cancel;
  cancel.set_job_id(response.job_id());
  v1::JobStatus cancelled;
  ASSERT_TRUE(jobs_->CancelJob(Deadlined().get(), cancel, &cancelled).ok());
  EXPECT_EQ(cancelled.state(), v1::JOB_STATE_CANCELLED);
  EXPECT_TRUE(server_->coordinator().AwaitSeeded(absl::Seconds(10)));
  const v1::JobStatus job = Job(response.job_id());
  EXPECT_EQ(job.state(), v1::JOB_STATE_CANCELLED);
  EXPECT_DOUBLE_EQ(job.heuristic_normalised_return(), 0.0);
}

// Jobs whose seed solve had not run when the coordinator stopped (one
// running, one waiting with a single solver) are seeded by the next one;
// the stop does not wait for the running solve (BRKGA for a minute here).
TEST_F(CoordinatorServerTest, SeedingJobsAreSeededByTheNextCoordinator) {
  seed_budget_ = absl::Seconds(60);
  max_seed_solves_ = 1;
  RestartServer("brkga");
  std::vector<std::string> ids;
  for (int i = 0; i < 2; ++i) {
    v1::SubmitJobResponse response;
    ASSERT_TRUE(
        jobs_->SubmitJob(Deadlined().get(), SmallRequest(), &response).ok());
    ids.push_back(response.job_id());
  }
  const absl::Time stop = absl::Now();
  StopServer();
  EXPECT_LT(absl::Now() - stop, absl::Seconds(10));
  seed_budget_ = absl::Milliseconds(500);
  StartServer("heuristic");
  for (const std::string& id : ids) {
    const v1::JobStatus job = AwaitSeeded(id);
    EXPECT_EQ(job.state(), v1::JOB_STATE_QUEUED) << id;
    EXPECT_EQ(job.best_solver(), "heuristic") << id;
    EXPECT_GT(job.heuristic_normalised_return(), 0.0) << id;
  }
}

// A burst of submissions beyond what waits for a seed solve is refused
// before any job is made, in well under a second.
TEST_F(CoordinatorServerTest, SubmissionsBeyondTheSeedQueueAreRefused) {
  seed_budget_ = absl::Milliseconds(1500);
  max_seed_solves_ = 1;
  RestartServer("brkga");
  const int room = 1 + Coordinator::kSeedsWaitingPerSolve;  // running + queued
  int made = 0;
  grpc::Status refused;
  for (int i = 0; i < room + 5 && refused.ok(); ++i) {
    v1::SubmitJobResponse response;
    const grpc::Status status =
        jobs_->SubmitJob(Deadlined().get(), SmallRequest(), &response);
    if (status.ok()) {
      ++made;
    } else {
      refused = status;
    }
  }
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(), HasSubstr("wait for their seed solve"));
  // The first may not have left the queue yet when the others came.
  EXPECT_GE(made, room - 1);
  EXPECT_LE(made, room);
  EXPECT_EQ(ListedJobs(), made);
}

TEST_F(CoordinatorServerTest, ResentSubmitWithItsRequestIdGetsTheSameJob) {
  v1::SubmitJobRequest request = SmallRequest();
  request.set_request_id("retry-1");
  const std::string first = Submit(request);
  const int jobs = ListedJobs();
  EXPECT_EQ(Submit(request), first);
  EXPECT_EQ(ListedJobs(), jobs);
  // ... also after a restart: the key is stored with the job.
  RestartServer();
  EXPECT_EQ(Submit(request), first);
  EXPECT_EQ(ListedJobs(), jobs);

  // The same key with another request is refused and makes nothing.
  request.set_name("another");
  v1::SubmitJobResponse response;
  const grpc::Status reused =
      jobs_->SubmitJob(Deadlined().get(), request, &response);
  EXPECT_EQ(reused.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_THAT(reused.error_message(),
              HasSubstr("request_id 'retry-1' was used for " + first));
  EXPECT_EQ(ListedJobs(), jobs);
  // Without a key every submit is a new job.
  EXPECT_NE(Submit(SmallRequest()), Submit(SmallRequest()));

  request.set_request_id("white space");
  const grpc::Status malformed =
      jobs_->SubmitJob(Deadlined().get(), request, &response);
  EXPECT_EQ(malformed.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(malformed.error_message(), HasSubstr("request_id: only"));
  request.set_request_id(std::string(129, 'k'));
  EXPECT_EQ(
      jobs_->SubmitJob(Deadlined().get(), request, &response).error_code(),
      grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(CoordinatorServerTest, BudgetDefaultsToTheMaximumWallTime) {
  v1::SubmitJobRequest request = SmallRequest();
  request.clear_budget();
  request.clear_preset();
  const v1::JobStatus job = Job(Submit(request));
  EXPECT_EQ(job.budget().wall_seconds(), 86400);
  EXPECT_EQ(job.preset(), "cpu");
}

TEST_F(CoordinatorServerTest, ListsJobsNewestFirstAndFiltersByState) {
  const std::string first = Submit();
  const std::string second = Submit();
  v1::ListJobsResponse all;
  ASSERT_TRUE(
      jobs_->ListJobs(Deadlined().get(), v1::ListJobsRequest(), &all).ok());
  ASSERT_EQ(all.jobs_size(), 2);
  EXPECT_EQ(all.jobs(0).job_id(), second);
  EXPECT_EQ(all.jobs(1).job_id(), first);

  v1::CancelJobRequest cancel;
  cancel.set_job_id(first);
  v1::JobStatus cancelled;
  ASSERT_TRUE(jobs_->CancelJob(Deadlined().get(), cancel, &cancelled).ok());
  v1::ListJobsRequest queued_only;
  queued_only.add_states(v1::JOB_STATE_QUEUED);
  v1::ListJobsResponse queued;
  ASSERT_TRUE(jobs_->ListJobs(Deadlined().get(), queued_only, &queued).ok());
  ASSERT_EQ(queued.jobs_size(), 1);
  EXPECT_EQ(queued.jobs(0).job_id(), second);
}

TEST_F(CoordinatorServerTest, CancelIsFinalAndIdempotent) {
  const std::string id = Submit();
  v1::CancelJobRequest request;
  request.set_job_id(id);
  request.set_reason("test");
  v1::JobStatus job;
  ASSERT_TRUE(jobs_->CancelJob(Deadlined().get(), request, &job).ok());
  EXPECT_EQ(job.state(), v1::JOB_STATE_CANCELLED);
  EXPECT_EQ(job.error(), "cancelled: test");
  EXPECT_GT(job.finished_unix_ms(), 0);
  ASSERT_TRUE(jobs_->CancelJob(Deadlined().get(), request, &job).ok());
  EXPECT_EQ(Job(id).state(), v1::JOB_STATE_CANCELLED);
  // A cancelled job still has its best solution.
  EXPECT_GT(Best(id).decisions_size(), 0);
}

// A job that may still run cannot be deleted; once cancelled it can, and
// with it goes everything the coordinator kept: after a restart it is
// still gone, the other job is untouched, and its id is not given again.
TEST_F(CoordinatorServerTest, DeleteRemovesAFinishedJobAndWhatItKept) {
  const std::string id = Submit();
  const std::string kept = Submit();
  v1::DeleteJobRequest request;
  request.set_job_id(id);
  v1::DeleteJobResponse deleted;
  const grpc::Status queued =
      jobs_->DeleteJob(Deadlined().get(), request, &deleted);
  EXPECT_EQ(queued.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(queued.error_message(), HasSubstr("cancel it first"));

  v1::CancelJobRequest cancel;
  cancel.set_job_id(id);
  v1::JobStatus job;
  ASSERT_TRUE(jobs_->CancelJob(Deadlined().get(), cancel, &job).ok());
  const grpc::Status status =
      jobs_->DeleteJob(Deadlined().get(), request, &deleted);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(deleted.job_id(), id);
  EXPECT_GT(deleted.freed_bytes(), 1000);  // the workload and its best
  EXPECT_THAT(deleted.freed(), HasSubstr("workload"));

  RestartServer();
  EXPECT_EQ(GetJob(id, &job).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(jobs_->DeleteJob(Deadlined().get(), request, &deleted)
                .error_code(),
            grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(GetJob(kept, &job).ok());
  EXPECT_GT(Best(kept).decisions_size(), 0);
  EXPECT_EQ(ListedJobs(), 1);
  const std::string next = Submit();
  EXPECT_NE(next, id);
  EXPECT_NE(next, kept);
}

// The dashboard's history is kept in the database: series recorded while
// a job runs (one thinned and rewritten on the way) are what a restarted
// coordinator shows, and a deleted job's series goes with it.
TEST_F(CoordinatorServerTest, DashboardHistorySurvivesARestart) {
  const std::string id = Submit();
  const std::string learner = Register(v1::WORKER_ROLE_LEARNER, "l:1");
  ASSERT_EQ(Heartbeat(learner).assignments_size(), 1);  // running now
  JobHistory recorder(/*max_points=*/2);
  for (int64_t t : {1'000, 2'000, 3'000}) {
    const std::vector<HistoryChange> changes =
        recorder.Record(*server_->coordinator().AllJobs(), t);
    ASSERT_EQ(changes.size(), 1u);
    EXPECT_EQ(changes[0].rewritten, t == 3'000);  // the third thins
    ASSERT_TRUE(server_->coordinator().SaveHistory(changes).ok());
  }
  v1::CancelJobRequest cancel;
  cancel.set_job_id(id);
  v1::JobStatus job;
  ASSERT_TRUE(jobs_->CancelJob(Deadlined().get(), cancel, &job).ok());
  ASSERT_TRUE(server_->coordinator()
                  .SaveHistory(recorder.Record(
                      *server_->coordinator().AllJobs(), 4'000))
                  .ok());
  const std::vector<JobSample> recorded = recorder.Samples(id);
  ASSERT_EQ(recorded.size(), 2u);  // thinned again: 1000 and the end

  RestartServer();
  const std::vector<JobSample> restored = server_->history().Samples(id);
  ASSERT_EQ(restored.size(), recorded.size());
  for (size_t i = 0; i < recorded.size(); ++i) {
    EXPECT_EQ(restored[i].unix_ms, recorded[i].unix_ms) << i;
    EXPECT_EQ(restored[i].best_latency_us, recorded[i].best_latency_us) << i;
    EXPECT_EQ(restored[i].best_normalised_return,
              recorded[i].best_normalised_return)
        << i;
  }

  // The same series through JobService, with the job's settings and
  // workload (what `mmapctl archive` keeps).
  v1::GetJobDetailsRequest details_request;
  details_request.set_job_id(id);
  v1::JobDetails details;
  const grpc::Status got =
      jobs_->GetJobDetails(Deadlined().get(), details_request, &details);
  ASSERT_TRUE(got.ok()) << got.error_message();
  EXPECT_EQ(details.job().state(), v1::JOB_STATE_CANCELLED);
  EXPECT_EQ(details.config().preset(), "cpu");
  EXPECT_TRUE(MessageDifferencer::Equals(details.workload(), workload_));
  ASSERT_EQ(details.history_size(), static_cast<int>(recorded.size()));
  for (size_t i = 0; i < recorded.size(); ++i) {
    EXPECT_EQ(details.history(static_cast<int>(i)).unix_ms(),
              recorded[i].unix_ms)
        << i;
  }

  v1::DeleteJobRequest remove;
  remove.set_job_id(id);
  v1::DeleteJobResponse removed;
  ASSERT_TRUE(jobs_->DeleteJob(Deadlined().get(), remove, &removed).ok());
  EXPECT_FALSE(server_->coordinator().StoredHistory()->contains(id));
}

// A worker that found the job's checkpoint damaged says so in its
// counters; the job's status keeps the latest such report, with who made
// it, across a restart and after the worker stops mentioning it.
TEST_F(CoordinatorServerTest, ACheckpointFallbackShowsInTheJobsStatus) {
  const std::string id = Submit();
  const std::string replay = Register(v1::WORKER_ROLE_REPLAY, "r:1");
  v1::JobCounters counters;
  counters.set_job_id(id);
  counters.set_checkpoint_fallback(
      "replay table checkpoint t.mzr damaged (checksum), set aside; loaded "
      "the previous one");
  Heartbeat(replay, {counters});
  v1::JobStatus job;
  ASSERT_TRUE(GetJob(id, &job).ok());
  EXPECT_EQ(
      job.checkpoint_fallback(),
      absl::StrCat("replay ", replay, ": ", counters.checkpoint_fallback()));
  counters.clear_checkpoint_fallback();
  Heartbeat(replay, {counters});
  RestartServer();
  ASSERT_TRUE(GetJob(id, &job).ok());
  EXPECT_THAT(job.checkpoint_fallback(), HasSubstr("loaded the previous one"));
  // Bounded like every heartbeat text.
  counters.set_checkpoint_fallback(std::string(5000, 'x'));
  v1::HeartbeatRequest request;
  request.set_worker_id(replay);
  *request.add_jobs() = counters;
  v1::HeartbeatResponse response;
  const grpc::Status refused =
      workers_->Heartbeat(Deadlined().get(), request, &response);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error_message(),
              HasSubstr("jobs[0].checkpoint_fallback: at most 4096 bytes"));
}

TEST_F(CoordinatorServerTest, UnknownJobIdIsNotFound) {
  Submit();
  v1::JobStatus job;
  for (const std::string id : {"job-000099", "nonsense"}) {
    const grpc::Status status = GetJob(id, &job);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << id;
    EXPECT_THAT(status.error_message(), HasSubstr(id));
  }
  v1::GetBestSolutionRequest best;
  best.set_job_id("job-000099");
  v1::GetBestSolutionResponse solution;
  EXPECT_EQ(
      jobs_->GetBestSolution(Deadlined().get(), best, &solution).error_code(),
      grpc::StatusCode::NOT_FOUND);
  v1::CancelJobRequest cancel;
  cancel.set_job_id("job-000099");
  EXPECT_EQ(jobs_->CancelJob(Deadlined().get(), cancel, &job).error_code(),
            grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(GetJob("", &job).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(CoordinatorServerTest,
       MalformedWorkloadIsInvalidArgumentAndStoresNothing) {
  Submit();
  v1::SubmitJobRequest request = SmallRequest();
  request.mutable_workload()->mutable_buffers(0)->set_size(0);
  v1::SubmitJobResponse response;
  const grpc::Status status =
      jobs_->SubmitJob(Deadlined().get(), request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("workload.buffers[0].size"));
  EXPECT_THAT(status.error_message(), HasSubstr("got 0"));
  EXPECT_EQ(ListedJobs(), 1);
}

TEST_F(CoordinatorServerTest, BadBudgetConfigAndPresetAreInvalidArguments) {
  struct Case {
    std::function<void(v1::SubmitJobRequest*)> spoil;
    std::string field;
  };
  const std::vector<Case> cases = {
      {[](v1::SubmitJobRequest* r) {
         r->mutable_budget()->set_wall_seconds(90000);
       },
       "budget.wall_seconds"},
      {[](v1::SubmitJobRequest* r) {
         r->mutable_budget()->set_learner_steps(-1);
       },
       "budget.learner_steps"},
      {[](v1::SubmitJobRequest* r) { r->set_preset("huge"); }, "preset"},
      {[](v1::SubmitJobRequest* r) {
         *r->mutable_config() = features::CpuPreset();
         r->mutable_config()->mutable_network()->set_hidden_size(0);
       },
       "network.hidden_size"},
      {[](v1::SubmitJobRequest* r) { r->clear_workload(); }, "workload"},
  };
  for (const Case& c : cases) {
    v1::SubmitJobRequest request = SmallRequest();
    c.spoil(&request);
    v1::SubmitJobResponse response;
    const grpc::Status status =
        jobs_->SubmitJob(Deadlined().get(), request, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << c.field;
    EXPECT_THAT(status.error_message(), HasSubstr(c.field));
  }
  EXPECT_EQ(ListedJobs(), 0);
}

TEST_F(CoordinatorServerTest, InvalidReportedSolutionIsRejectedAndBestKept) {
  const std::string id = Submit();
  const Solution seed = Best(id);
  Solution broken = seed;
  broken.mutable_decisions()->RemoveLast();  // a buffer without a decision
  broken.set_normalised_return(1.0);         // and a tall claim
  const v1::ReportSolutionResponse response = Report(id, broken);
  EXPECT_FALSE(response.accepted());
  EXPECT_THAT(response.reason(), HasSubstr("invalid"));
  EXPECT_THAT(response.reason(), HasSubstr("missing_decision"));
  EXPECT_DOUBLE_EQ(response.best_normalised_return(), seed.normalised_return());
  EXPECT_TRUE(MessageDifferencer::Equals(Best(id), seed));
}

TEST_F(CoordinatorServerTest, ValidButNotBetterSolutionIsRejected) {
  const std::string id = Submit();
  const Solution seed = Best(id);
  const v1::ReportSolutionResponse response = Report(id, seed);
  EXPECT_FALSE(response.accepted());
  EXPECT_THAT(response.reason(), HasSubstr("not faster"));
  EXPECT_DOUBLE_EQ(response.validated_normalised_return(),
                   seed.normalised_return());
}

TEST_F(CoordinatorServerTest, BetterValidSolutionIsAcceptedAndSurvivesRestart) {
  // Seeded with drop-all (return 0), so the heuristic's solution is better.
  RestartServer("drop-all");
  const std::string id = Submit();
  EXPECT_DOUBLE_EQ(Job(id).best_normalised_return(), 0.0);
  EXPECT_DOUBLE_EQ(Job(id).agent_speedup(), 1.0);  // the start is the best
  const Solution seed = Best(id);
  EXPECT_EQ(seed.solver().name(), "drop-all");

  RestartServer("heuristic");
  const std::string heuristic_job = Submit();
  Solution better = Best(heuristic_job);
  ASSERT_GT(better.normalised_return(), 0.0);
  better.mutable_solver()->set_name("agent");
  better.set_normalised_return(0.0);  // claims are not trusted either way
  const v1::ReportSolutionResponse response = Report(id, better);
  EXPECT_TRUE(response.accepted()) << response.reason();
  EXPECT_THAT(response.reason(), HasSubstr("claimed"));
  const double expected = Best(heuristic_job).normalised_return();
  EXPECT_DOUBLE_EQ(response.best_normalised_return(), expected);

  const v1::JobStatus job = Job(id);
  EXPECT_DOUBLE_EQ(job.best_normalised_return(), expected);
  EXPECT_EQ(job.best_solver(), "agent");
  // The agent's own share: its best over the start (the seed; no stage).
  EXPECT_EQ(job.start_solver(), "heuristic");
  EXPECT_DOUBLE_EQ(job.start_latency_us(), job.heuristic_latency_us());
  EXPECT_EQ(job.seed_stage_latency_us(), 0.0);
  EXPECT_GT(job.agent_speedup(), 1.0);
  EXPECT_DOUBLE_EQ(job.agent_speedup(),
                   job.start_latency_us() / job.best_latency_us());

  RestartServer();
  EXPECT_EQ(ListedJobs(), 2);
  const Solution kept = Best(id);
  EXPECT_DOUBLE_EQ(kept.normalised_return(), expected);
  EXPECT_EQ(kept.solver().name(), "agent");
  EXPECT_TRUE(validate::ValidateSolution(workload_, kept).ok);
  EXPECT_EQ(Job(id).state(), v1::JOB_STATE_QUEUED);
  EXPECT_EQ(Submit(), "job-000003");  // ids are never reused
}

TEST_F(CoordinatorServerTest, LearnerLeaseExpiresAndGoesToAnotherWorker) {
  const std::string id = Submit();
  const std::string a = Register(v1::WORKER_ROLE_LEARNER, "10.0.0.1:7071");
  const std::string b = Register(v1::WORKER_ROLE_LEARNER, "10.0.0.2:7071");

  v1::HeartbeatResponse first = Heartbeat(a);
  ASSERT_EQ(first.assignments_size(), 1);
  const v1::Assignment& assignment = first.assignments(0);
  EXPECT_EQ(assignment.job_id(), id);
  EXPECT_EQ(assignment.role(), v1::WORKER_ROLE_LEARNER);
  // The workload's size, to fetch it by (FetchWorkload), never the workload.
  EXPECT_EQ(assignment.workload_bytes(),
            static_cast<int64_t>(workload_.ByteSizeLong()));
  EXPECT_FALSE(assignment.has_workload());
  EXPECT_EQ(assignment.config().preset(), "cpu");
  // The job's best so far (the heuristic's seed), to start games from.
  EXPECT_EQ(assignment.best().decisions_size(), workload_.buffers_size());
  EXPECT_EQ(assignment.parameter_address(), "10.0.0.1:7071");
  EXPECT_GT(assignment.lease_expiry_unix_ms(), 0);
  // The job's identity, drawn at submit: 32 hex digits, kept across leases.
  EXPECT_THAT(assignment.job_uid(), ::testing::MatchesRegex("[0-9a-f]{32}"));
  const std::string uid = assignment.job_uid();
  // The first grant of the learner lease.
  EXPECT_EQ(assignment.lease_epoch(), 1);
  v1::JobStatus job = Job(id);
  EXPECT_EQ(job.state(), v1::JOB_STATE_RUNNING);
  EXPECT_EQ(job.learner_worker_id(), a);
  EXPECT_GT(job.started_unix_ms(), 0);

  EXPECT_EQ(Heartbeat(b).assignments_size(), 0);  // a holds it
  clock_.Advance(absl::Seconds(3));
  v1::JobCounters counters;
  counters.set_job_id(id);
  counters.set_learner_step(10);
  counters.set_demonstrated_return(assignment.best().normalised_return());
  // A worker that reports the job gets no second copy of the spec.
  const v1::HeartbeatResponse renewed = Heartbeat(a, {counters});
  ASSERT_EQ(renewed.assignments_size(), 1);
  EXPECT_EQ(renewed.assignments(0).workload_bytes(), 0);
  EXPECT_FALSE(renewed.assignments(0).has_config());
  EXPECT_EQ(renewed.assignments(0).best().decisions_size(), 0);
  EXPECT_EQ(renewed.assignments(0).lease_epoch(), 1);  // a renewal
  EXPECT_EQ(Job(id).learner_step(), 10);

  clock_.Advance(absl::Seconds(6));  // a falls silent past its lease
  const v1::HeartbeatResponse takeover = Heartbeat(b);
  ASSERT_EQ(takeover.assignments_size(), 1);
  EXPECT_EQ(takeover.assignments(0).job_id(), id);
  EXPECT_EQ(takeover.assignments(0).job_uid(), uid);
  // A new holder: a higher epoch fences a's checkpoints out.
  EXPECT_EQ(takeover.assignments(0).lease_epoch(), 2);
  EXPECT_EQ(takeover.assignments(0).parameter_address(), "10.0.0.2:7071");
  EXPECT_EQ(takeover.assignments(0).workload_bytes(),
            static_cast<int64_t>(workload_.ByteSizeLong()));
  job = Job(id);
  EXPECT_EQ(job.learner_worker_id(), b);
  EXPECT_EQ(job.state(), v1::JOB_STATE_RUNNING);

  // a comes back: its report is stale and it gets nothing.
  counters.set_learner_step(99);
  EXPECT_EQ(Heartbeat(a, {counters}).assignments_size(), 0);
  EXPECT_EQ(Job(id).learner_step(), 10);

  // b falls silent too and a takes the job back: a third grant, and a
  // restarted coordinator keeps counting.
  clock_.Advance(absl::Seconds(11));
  RestartServer();
  const v1::HeartbeatResponse back = Heartbeat(a);
  ASSERT_EQ(back.assignments_size(), 1);
  EXPECT_EQ(back.assignments(0).lease_epoch(), 3);
}

// The learner replays every best as a demonstration: it is sent each new
// best until its heartbeat says it holds it (or a better one); actors get
// the best with the spec only.
TEST_F(CoordinatorServerTest, ALearnerIsSentEachNewBestUntilItHoldsIt) {
  RestartServer("heuristic");
  const Solution better = Best(Submit());  // job 1: the heuristic's plan
  RestartServer("drop-all");
  const std::string id = Submit();  // job 2: seeded with return 0
  const std::string learner =
      Register(v1::WORKER_ROLE_LEARNER, "l:1", /*capacity=*/2);
  const std::string actor =
      Register(v1::WORKER_ROLE_ACTOR, "a:1", /*capacity=*/2);
  v1::HeartbeatResponse first = Heartbeat(learner);
  ASSERT_EQ(first.assignments_size(), 2);
  const v1::Assignment* assigned = &first.assignments(0);
  if (assigned->job_id() != id) assigned = &first.assignments(1);
  const Solution seed = assigned->best();
  EXPECT_EQ(seed.solver().name(), "drop-all");
  ASSERT_EQ(Heartbeat(actor).assignments_size(), 2);

  v1::JobCounters counters;
  counters.set_job_id(id);
  counters.set_demonstrated_return(seed.normalised_return());
  const auto best_sent = [&](const std::string& worker) -> Solution {
    const v1::HeartbeatResponse response = Heartbeat(worker, {counters});
    for (const v1::Assignment& a : response.assignments()) {
      if (a.job_id() == id) return a.best();
    }
    ADD_FAILURE() << "no assignment of " << id;
    return Solution();
  };
  EXPECT_EQ(best_sent(learner).decisions_size(), 0);  // it holds the seed

  ASSERT_TRUE(Report(id, better).accepted());
  const Solution sent = best_sent(learner);
  EXPECT_EQ(sent.decisions_size(), workload_.buffers_size());
  EXPECT_DOUBLE_EQ(sent.normalised_return(), better.normalised_return());
  EXPECT_EQ(best_sent(learner).decisions_size(), workload_.buffers_size())
      << "until the learner says it holds it";
  counters.set_demonstrated_return(sent.normalised_return());
  EXPECT_EQ(best_sent(learner).decisions_size(), 0);
  EXPECT_EQ(best_sent(actor).decisions_size(), 0);  // actors: with the spec
}

TEST_F(CoordinatorServerTest, ActorsLearnTheirJobsReplayAndLearnerAddresses) {
  const std::string id = Submit();
  const std::string actor = Register(v1::WORKER_ROLE_ACTOR);
  EXPECT_EQ(Heartbeat(actor).assignments_size(), 0);  // nothing running

  const std::string learner = Register(v1::WORKER_ROLE_LEARNER, "learner:1");
  const std::string replay = Register(v1::WORKER_ROLE_REPLAY, "replay:1");
  Heartbeat(learner);
  Heartbeat(replay);
  const v1::HeartbeatResponse response = Heartbeat(actor);
  ASSERT_EQ(response.assignments_size(), 1);
  EXPECT_EQ(response.assignments(0).job_id(), id);
  EXPECT_EQ(response.assignments(0).role(), v1::WORKER_ROLE_ACTOR);
  EXPECT_EQ(response.assignments(0).parameter_address(), "learner:1");
  EXPECT_EQ(response.assignments(0).replay_address(), "replay:1");

  v1::JobCounters counters;
  counters.set_job_id(id);
  counters.set_games(3);
  counters.set_moves(900);
  Heartbeat(actor, {counters});
  counters.set_games(5);  // cumulative: replaces, never adds
  Heartbeat(actor, {counters});
  const v1::JobStatus job = Job(id);
  EXPECT_EQ(job.games(), 5);
  EXPECT_EQ(job.actors(), 1);
}

// More jobs than actor slots: the learner starts only as many as the live
// actors can serve, and when an actor dies the one left takes turns
// between the running jobs (lease rotation, default 60 s).
TEST_F(CoordinatorServerTest, JobsStartForActorSlotsAndActorsRotate) {
  const std::string first = Submit();
  const std::string second = Submit();
  const std::string third = Submit();
  const std::string a = Register(v1::WORKER_ROLE_ACTOR);
  const std::string b = Register(v1::WORKER_ROLE_ACTOR);
  const std::string learner =
      Register(v1::WORKER_ROLE_LEARNER, "learner:1", /*capacity=*/4);
  EXPECT_EQ(Heartbeat(learner).assignments_size(), 2);
  EXPECT_EQ(Job(first).state(), v1::JOB_STATE_RUNNING);
  EXPECT_EQ(Job(second).state(), v1::JOB_STATE_RUNNING);
  EXPECT_EQ(Job(third).state(), v1::JOB_STATE_QUEUED);
  const auto job_of = [&](const std::string& worker) {
    const v1::HeartbeatResponse response = Heartbeat(worker);
    EXPECT_EQ(response.assignments_size(), 1) << worker;
    return response.assignments_size() == 1 ? response.assignments(0).job_id()
                                            : std::string();
  };
  EXPECT_EQ(job_of(a), first);
  EXPECT_EQ(job_of(b), second);

  // b falls silent; a serves `first` alone and `second` has no actor. The
  // learner starts nothing more: one live slot, two running jobs.
  std::vector<std::string> served;  // a's job, second by second
  for (int second_of_run = 0; second_of_run < 130; ++second_of_run) {
    clock_.Advance(absl::Seconds(1));
    EXPECT_EQ(Heartbeat(learner).assignments_size(), 2);
    served.push_back(job_of(a));
  }
  EXPECT_EQ(Job(third).state(), v1::JOB_STATE_QUEUED);
  // a moves to `second` a minute after it took `first`, and back a minute
  // later: each running job gets turns.
  EXPECT_EQ(served[30], first);
  EXPECT_EQ(served[70], second);
  EXPECT_EQ(served[125], first);
}

TEST_F(CoordinatorServerTest, LearnerStepBudgetEndsTheJob) {
  v1::SubmitJobRequest request = SmallRequest();
  request.mutable_budget()->set_learner_steps(100);
  const std::string id = Submit(request);
  const std::string learner = Register(v1::WORKER_ROLE_LEARNER, "l:1");
  ASSERT_EQ(Heartbeat(learner).assignments_size(), 1);
  v1::JobCounters counters;
  counters.set_job_id(id);
  counters.set_learner_step(100);
  (*counters.mutable_losses())["policy"] = 0.7;
  EXPECT_EQ(Heartbeat(learner, {counters}).assignments_size(), 0);
  const v1::JobStatus job = Job(id);
  EXPECT_EQ(job.state(), v1::JOB_STATE_DONE);
  EXPECT_EQ(job.learner_step(), 100);
  EXPECT_DOUBLE_EQ(job.losses().at("policy"), 0.7);
}

TEST_F(CoordinatorServerTest, WallBudgetEndsTheJobAtTheNextTick) {
  const std::string id = Submit();  // 600 s
  ASSERT_EQ(
      Heartbeat(Register(v1::WORKER_ROLE_LEARNER, "l:1")).assignments_size(),
      1);
  clock_.Advance(absl::Seconds(599));
  ASSERT_TRUE(server_->coordinator().Tick().ok());
  EXPECT_EQ(Job(id).state(), v1::JOB_STATE_RUNNING);
  clock_.Advance(absl::Seconds(1));
  ASSERT_TRUE(server_->coordinator().Tick().ok());
  EXPECT_EQ(Job(id).state(), v1::JOB_STATE_DONE);
}

TEST_F(CoordinatorServerTest, ExtendGivesAJobMoreTimeWithinADay) {
  const std::string id = Submit();  // 600 s
  const std::string learner = Register(v1::WORKER_ROLE_LEARNER, "l:1");
  ASSERT_EQ(Heartbeat(learner).assignments_size(), 1);  // running
  v1::ExtendJobRequest extend;
  extend.set_job_id(id);
  extend.set_wall_seconds(300);
  v1::JobStatus job;
  const grpc::Status extended =
      jobs_->ExtendJob(Deadlined().get(), extend, &job);
  ASSERT_TRUE(extended.ok()) << extended.error_message();
  EXPECT_EQ(job.budget().wall_seconds(), 900);
  RestartServer();  // the budget is stored
  EXPECT_EQ(Job(id).budget().wall_seconds(), 900);
  clock_.Advance(absl::Seconds(600));
  ASSERT_TRUE(server_->coordinator().Tick().ok());
  EXPECT_EQ(Job(id).state(), v1::JOB_STATE_RUNNING);
  clock_.Advance(absl::Seconds(300));
  ASSERT_TRUE(server_->coordinator().Tick().ok());
  EXPECT_EQ(Job(id).state(), v1::JOB_STATE_DONE);

  // An ended job is resumed, not extended; no job runs past 24 h; the
  // time added is whole seconds > 0.
  const grpc::Status done = jobs_->ExtendJob(Deadlined().get(), extend, &job);
  EXPECT_EQ(done.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(done.error_message(), HasSubstr("resume"));
  extend.set_job_id(Submit());
  extend.set_wall_seconds(86400);
  const grpc::Status over = jobs_->ExtendJob(Deadlined().get(), extend, &job);
  EXPECT_EQ(over.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(over.error_message(), HasSubstr("at most 85800 s more"));
  extend.set_wall_seconds(0);
  EXPECT_EQ(jobs_->ExtendJob(Deadlined().get(), extend, &job).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(CoordinatorServerTest, ResumeRunsAnEndedJobAgainFromItsBest) {
  const std::string id = Submit();
  const Solution best = Best(id);
  const std::string learner = Register(v1::WORKER_ROLE_LEARNER, "l:1");
  ASSERT_EQ(Heartbeat(learner).assignments_size(), 1);
  v1::JobCounters counters;
  counters.set_job_id(id);
  counters.set_learner_step(50);
  counters.set_games(7);
  Heartbeat(learner, {counters});
  v1::ResumeJobRequest resume;
  resume.set_job_id(id);
  resume.set_wall_seconds(120);
  v1::ResumeJobResponse resumed;
  const grpc::Status running =
      jobs_->ResumeJob(Deadlined().get(), resume, &resumed);
  EXPECT_EQ(running.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(running.error_message(), HasSubstr("extend"));

  v1::CancelJobRequest cancel;
  cancel.set_job_id(id);
  v1::JobStatus job;
  ASSERT_TRUE(jobs_->CancelJob(Deadlined().get(), cancel, &job).ok());
  const grpc::Status status =
      jobs_->ResumeJob(Deadlined().get(), resume, &resumed);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(resumed.job().state(), v1::JOB_STATE_QUEUED);
  EXPECT_EQ(resumed.job().budget().wall_seconds(), 120);
  EXPECT_EQ(resumed.job().budget().learner_steps(), 0);
  EXPECT_EQ(resumed.job().games(), 7);  // counters kept
  EXPECT_THAT(resumed.note(), HasSubstr("step 50"));
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(Best(id), best));

  // A learner takes it again, with no step limit, and it runs its new
  // budget from then.
  const v1::HeartbeatResponse again = Heartbeat(learner);
  ASSERT_EQ(again.assignments_size(), 1);
  EXPECT_EQ(again.assignments(0).learner_steps_budget(), 0);
  EXPECT_EQ(Job(id).state(), v1::JOB_STATE_RUNNING);
  clock_.Advance(absl::Seconds(119));
  ASSERT_TRUE(server_->coordinator().Tick().ok());
  EXPECT_EQ(Job(id).state(), v1::JOB_STATE_RUNNING);
  clock_.Advance(absl::Seconds(1));
  ASSERT_TRUE(server_->coordinator().Tick().ok());
  EXPECT_EQ(Job(id).state(), v1::JOB_STATE_DONE);
  // Failed, a job may not be resumed; done, it may, again.
  const std::string failing = Submit();
  Heartbeat(learner);
  v1::JobCounters fatal;
  fatal.set_job_id(failing);
  fatal.set_fatal_error("out of memory");
  Heartbeat(learner, {fatal});
  ASSERT_EQ(Job(failing).state(), v1::JOB_STATE_FAILED);
  resume.set_job_id(failing);
  const grpc::Status failed =
      jobs_->ResumeJob(Deadlined().get(), resume, &resumed);
  EXPECT_EQ(failed.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(failed.error_message(), HasSubstr("submit it again"));
  resume.set_job_id(id);
  EXPECT_TRUE(jobs_->ResumeJob(Deadlined().get(), resume, &resumed).ok());
  EXPECT_EQ(Job(id).state(), v1::JOB_STATE_QUEUED);
}

TEST_F(CoordinatorServerTest, RetentionDeletesOldAndSurplusEndedJobs) {
  max_finished_jobs_ = 1;
  retention_ = absl::Hours(1);
  RestartServer();
  const std::string first = Submit();
  const std::string second = Submit();
  const std::string running = Submit();
  v1::CancelJobRequest cancel;
  v1::JobStatus job;
  for (const std::string& id : {first, second}) {
    cancel.set_job_id(id);
    ASSERT_TRUE(jobs_->CancelJob(Deadlined().get(), cancel, &job).ok());
    clock_.Advance(absl::Seconds(1));
  }
  // Beyond the newest one ended job: the first goes.
  ASSERT_TRUE(server_->coordinator().Tick().ok());
  EXPECT_EQ(GetJob(first, &job).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(Job(second).state(), v1::JOB_STATE_CANCELLED);
  // An hour after it ended, the second goes too; a job that has not ended
  // is never touched.
  clock_.Advance(absl::Minutes(59));
  ASSERT_TRUE(server_->coordinator().Tick().ok());
  EXPECT_EQ(Job(second).state(), v1::JOB_STATE_CANCELLED);
  clock_.Advance(absl::Minutes(1));
  ASSERT_TRUE(server_->coordinator().Tick().ok());
  EXPECT_EQ(GetJob(second, &job).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(Job(running).state(), v1::JOB_STATE_QUEUED);
  EXPECT_EQ(ListedJobs(), 1);
  const absl::StatusOr<std::string> audit =
      ReadWholeFile(dir_.path() + "/audit.jsonl");
  ASSERT_TRUE(audit.ok()) << audit.status();
  EXPECT_THAT(*audit, HasSubstr("\"event\":\"job_expired\""));
  EXPECT_THAT(*audit, HasSubstr("beyond the newest 1 ended jobs"));
  EXPECT_THAT(*audit, HasSubstr("ended over 3600 s ago"));
}

TEST_F(CoordinatorServerTest, LearnerFatalErrorFailsTheJob) {
  const std::string id = Submit();
  const std::string learner = Register(v1::WORKER_ROLE_LEARNER, "l:1");
  Heartbeat(learner);
  v1::JobCounters counters;
  counters.set_job_id(id);
  counters.set_fatal_error("out of memory");
  Heartbeat(learner, {counters});
  const v1::JobStatus job = Job(id);
  EXPECT_EQ(job.state(), v1::JOB_STATE_FAILED);
  EXPECT_THAT(job.error(), HasSubstr("out of memory"));
}

TEST_F(CoordinatorServerTest, BadWorkerRequestsAreRejectedClearly) {
  v1::RegisterRequest bad_role;
  v1::RegisterResponse registered;
  grpc::Status status =
      workers_->Register(Deadlined().get(), bad_role, &registered);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("role"));

  v1::RegisterRequest no_address;
  no_address.set_role(v1::WORKER_ROLE_LEARNER);
  status = workers_->Register(Deadlined().get(), no_address, &registered);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("address"));

  v1::HeartbeatRequest unknown;
  unknown.set_worker_id("worker-000042");
  v1::HeartbeatResponse response;
  status = workers_->Heartbeat(Deadlined().get(), unknown, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("worker-000042"));

  v1::ReportSolutionRequest report;
  report.set_job_id(Submit());
  v1::ReportSolutionResponse reported;
  status = workers_->ReportSolution(Deadlined().get(), report, &reported);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("solution"));
  *report.mutable_solution() = Best(report.job_id());
  report.set_worker_id("worker-000077");
  status = workers_->ReportSolution(Deadlined().get(), report, &reported);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("worker-000077"));

  const std::string actor = Register(v1::WORKER_ROLE_ACTOR);
  v1::HeartbeatRequest negative;
  negative.set_worker_id(actor);
  negative.add_jobs()->set_games(-1);
  status = workers_->Heartbeat(Deadlined().get(), negative, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("jobs[0].games"));
  negative.mutable_jobs(0)->set_games(1);
  negative.mutable_jobs(0)->set_best_start_window(-4);
  status = workers_->Heartbeat(Deadlined().get(), negative, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("jobs[0].best_start_window"));
  // Bounded: entries, loss terms and text.
  v1::HeartbeatRequest many;
  many.set_worker_id(actor);
  for (int i = 0; i < 1025; ++i) many.add_jobs();
  status = workers_->Heartbeat(Deadlined().get(), many, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("jobs: at most 1024"));
  v1::HeartbeatRequest wordy;
  wordy.set_worker_id(actor);
  v1::JobCounters* counters = wordy.add_jobs();
  for (int i = 0; i < 65; ++i) {
    (*counters->mutable_losses())["term" + std::to_string(i)] = 1;
  }
  status = workers_->Heartbeat(Deadlined().get(), wordy, &response);
  EXPECT_THAT(status.error_message(), HasSubstr("jobs[0].losses: at most 64"));
  counters->clear_losses();
  counters->set_fatal_error(std::string(5000, 'e'));
  status = workers_->Heartbeat(Deadlined().get(), wordy, &response);
  EXPECT_THAT(status.error_message(), HasSubstr("jobs[0].fatal_error"));
}

TEST_F(CoordinatorServerTest, WatchStreamsProgressUntilTheJobIsFinal) {
  const std::string id = Submit();
  v1::WatchJobRequest request;
  request.set_job_id(id);
  auto context = Deadlined();
  auto stream = jobs_->WatchJob(context.get(), request);
  v1::JobProgress progress;
  ASSERT_TRUE(stream->Read(&progress));
  EXPECT_EQ(progress.job().state(), v1::JOB_STATE_QUEUED);
  EXPECT_FALSE(progress.best_improved());

  v1::CancelJobRequest cancel;
  cancel.set_job_id(id);
  v1::JobStatus cancelled;
  ASSERT_TRUE(jobs_->CancelJob(Deadlined().get(), cancel, &cancelled).ok());
  v1::JobState last = progress.job().state();
  while (stream->Read(&progress)) last = progress.job().state();
  EXPECT_EQ(last, v1::JOB_STATE_CANCELLED);
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(CoordinatorServerTest, WatchOfUnknownJobIsNotFound) {
  v1::WatchJobRequest request;
  request.set_job_id("job-000123");
  auto context = Deadlined();
  auto stream = jobs_->WatchJob(context.get(), request);
  v1::JobProgress progress;
  EXPECT_FALSE(stream->Read(&progress));
  EXPECT_EQ(stream->Finish().error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(CoordinatorServerTest, HealthCheckSaysServing) {
  for (const char* service :
       {"", "mmapzero.v1.JobService", "mmapzero.v1.WorkerService"}) {
    const absl::StatusOr<rpc::ServingStatus> status =
        rpc::CheckServingStatus(channel_, service, absl::Seconds(10));
    ASSERT_TRUE(status.ok()) << service << ": " << status.status();
    EXPECT_EQ(*status, rpc::ServingStatus::kServing) << service;
  }
  EXPECT_EQ(rpc::CheckServingStatus(channel_, "mmapzero.v1.NoSuchService",
                                    absl::Seconds(10))
                .status()
                .code(),
            absl::StatusCode::kNotFound);
}

TEST_F(CoordinatorServerTest, MetricsShowJobStatesAndBestReturn) {
  RestartServer("heuristic", /*metrics=*/true);
  const std::string id = Submit();
  ASSERT_GT(server_->metrics_port(), 0);
  const std::string metrics =
      metrics::LoopbackHttpGet(server_->metrics_port(), "/metrics");
  EXPECT_THAT(metrics,
              HasSubstr("mmapzero_coordinator_jobs{state=\"queued\"} 1"));
  EXPECT_THAT(metrics, HasSubstr("mmapzero_job_best_normalised_return{job=\"" +
                                 id + "\",name=\"small\"}"));
  EXPECT_THAT(metrics, HasSubstr("mmapzero_coordinator_rpcs_total{code=\"OK\","
                                 "method=\"SubmitJob\"} 1"));
  // The database's size: the job's workload at least.
  const size_t at = metrics.find("\nmmapzero_coordinator_database_bytes ");
  ASSERT_NE(at, std::string::npos) << metrics;
  EXPECT_GT(std::stod(metrics.substr(at + 37)), workload_.ByteSizeLong());
}

// The dashboard on the metrics port, over real HTTP: the page, and the
// JSON it draws from with the running job and each worker's parameter lag
// (the learner's version less the worker's); /healthz reports the
// database's ticks.
TEST_F(CoordinatorServerTest, DashboardShowsJobsAndWorkersParameterLag) {
  RestartServer("heuristic", /*metrics=*/true);
  const std::string id = Submit();
  const std::string learner = Register(v1::WORKER_ROLE_LEARNER, "learner:1");
  const std::string replay = Register(v1::WORKER_ROLE_REPLAY, "replay:1");
  const std::string actor = Register(v1::WORKER_ROLE_ACTOR);
  Heartbeat(learner);
  Heartbeat(replay);
  ASSERT_EQ(Heartbeat(actor).assignments_size(), 1);
  v1::JobCounters learned;
  learned.set_job_id(id);
  learned.set_learner_step(300);
  learned.set_parameter_version(30);
  Heartbeat(learner, {learned});
  v1::JobCounters acted;
  acted.set_job_id(id);
  acted.set_games(7);
  acted.set_parameter_version(12);
  Heartbeat(actor, {acted});

  const int port = server_->metrics_port();
  const std::string page = metrics::LoopbackHttpGet(port, "/");
  EXPECT_THAT(page, HasSubstr("HTTP/1.1 200"));
  EXPECT_THAT(page, HasSubstr("text/html"));
  EXPECT_THAT(page, HasSubstr("<title>mmapzero</title>"));
  EXPECT_THAT(page, HasSubstr("/api/dashboard"));

  const std::string reply = metrics::LoopbackHttpGet(port, "/api/dashboard");
  ASSERT_THAT(reply, HasSubstr("HTTP/1.1 200"));
  const nlohmann::json data =
      nlohmann::json::parse(reply.substr(reply.find("\r\n\r\n") + 4));
  ASSERT_EQ(data["jobs"].size(), 1u);
  EXPECT_EQ(data["jobs"][0]["job_id"], id);
  EXPECT_EQ(data["jobs"][0]["state"], "running");
  EXPECT_EQ(data["jobs"][0]["learner_step"], 300);
  EXPECT_EQ(data["jobs"][0]["games"], 7);
  bool actor_seen = false;
  for (const nlohmann::json& worker : data["workers"]) {
    if (worker["worker_id"] != actor) continue;
    actor_seen = true;
    EXPECT_EQ(worker["role"], "actor");
    ASSERT_EQ(worker["jobs"].size(), 1u);
    EXPECT_EQ(worker["jobs"][0]["job_id"], id);
    EXPECT_EQ(worker["jobs"][0]["parameter_version"], 12);
    EXPECT_EQ(worker["jobs"][0]["lag"], 18);
  }
  EXPECT_TRUE(actor_seen) << data.dump();
  EXPECT_EQ(data["workers"].size(), 3u) << data.dump();

  const std::string health = metrics::LoopbackHttpGet(port, "/healthz");
  EXPECT_THAT(health, HasSubstr("HTTP/1.1 200"));
  EXPECT_THAT(health, HasSubstr("coordinator_database ok"));
}

}  // namespace
}  // namespace mmapzero::coordinator
