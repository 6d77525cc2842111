// Bad input through the real service binaries: mmapzero-coordinator and
// mmapzero-replay run as `mmapctl local up --only coordinator,replay` starts
// them (cli/local_cluster.h: processes of their own on loopback ports, a
// temporary data dir) and are called with the generated stubs, past
// mmapctl's own client-side checks. Every bad request gets a clear gRPC
// status (docs/protocols.md, "Errors": the code, and a message naming the
// field and the value) and changes nothing: afterwards the job list, each
// job's state, counters and best solution and the replay's table are as
// before, and both services still run and answer health checks SERVING.
//
// The cluster holds two jobs of examples/small.json: job-000001 running (the
// test registers as its learner, which starts it, and as an actor holding
// its lease, as the real workers would) and job-000002 queued. Skipped when
// the two binaries are not built next to this test.
#include <google/protobuf/util/message_differencer.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cli/local_cluster.h"
#include "common/base/address_file.h"
#include "common/features/config_presets.h"
#include "common/security/local_certificates.h"
#include "common/security/transport_security.h"
#include "common/workload/proto_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/job.grpc.pb.h"
#include "proto/replay.grpc.pb.h"
#include "proto/worker.grpc.pb.h"

namespace mmapzero {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kBinDir[] = MMAPZERO_BIN_DIR;
const std::string kSmall =
    std::string(MMAPZERO_SOURCE_DIR) + "/examples/small.json";
constexpr char kRunningJob[] = "job-000001";
constexpr char kQueuedJob[] = "job-000002";
// What the servers accept (common/rpc/grpc_server.h; replay --max-message-mb).
constexpr int kServerMaxMessageBytes = 64 << 20;

void SetDeadline(grpc::ClientContext* context,
                 absl::Duration timeout = absl::Seconds(30)) {
  context->set_deadline(std::chrono::system_clock::now() +
                        absl::ToChronoMilliseconds(timeout));
}

// A status's code and message, for failure messages.
std::string Describe(const grpc::Status& status) {
  return absl::StrCat("code ", status.error_code(), ": ",
                      status.error_message());
}

// What a bad request must not change, as the clients see it.
struct ClusterState {
  std::vector<v1::JobStatus> jobs;  // newest first; lease fields cleared
  std::map<std::string, v1::GetBestSolutionResponse> best;
  v1::ReplayStats replay;  // the running job's table; capacity cleared
};

class RealBinariesBadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* role : {"coordinator", "replay"}) {
      const std::string binary = absl::StrCat(kBinDir, "/mmapzero-", role);
      if (access(binary.c_str(), X_OK) != 0) {
        GTEST_SKIP() << binary << " is not built";
      }
    }
    absl::StatusOr<Workload> workload = ReadWorkload(kSmall);
    ASSERT_TRUE(workload.ok()) << workload.status();
    workload_ = *std::move(workload);

    std::string dir =
        (std::filesystem::path(::testing::TempDir()) / "real_binaries_XXXXXX")
            .string();
    ASSERT_NE(mkdtemp(dir.data()), nullptr) << "mkdtemp " << dir;
    options_.data_dir = dir;
    options_.bin_dir = kBinDir;
    options_.only = {cli::LocalRole::kCoordinator, cli::LocalRole::kReplay};
    std::ostringstream log;
    const absl::Status up = cli::LocalUp(options_, log);
    started_ = up.ok();
    ASSERT_TRUE(up.ok()) << up << "\n" << log.str();
    ASSERT_NO_FATAL_FAILURE(Connect());
    ASSERT_NO_FATAL_FAILURE(StartJobs());
    ASSERT_NO_FATAL_FAILURE(before_ = State());
  }

  void TearDown() override {
    if (started_) {
      // Closed first: an idle client's channel notices the servers' GOAWAY
      // only at gRPC's 5 s backup poll, which their shutdown would wait for.
      jobs_.reset();
      workers_.reset();
      replay_.reset();
      std::ostringstream log;
      const absl::Status down = cli::LocalDown(options_, log);
      EXPECT_TRUE(down.ok()) << down << "\n" << log.str();
    }
    if (!options_.data_dir.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(options_.data_dir, ignored);
    }
  }

  std::string AddressOf(const std::string& service) {
    absl::StatusOr<std::string> address =
        ReadAddressFile(absl::StrCat(options_.data_dir, "/", service, ".addr"));
    EXPECT_TRUE(address.ok()) << address.status();
    return address.value_or("");
  }

  // A channel speaking as `holder` of the cluster's certificates (the
  // local cluster runs with mutual TLS), with no send limit of its own so
  // that oversized requests reach the servers.
  std::shared_ptr<grpc::Channel> ChannelAs(const std::string& service,
                                           const std::string& holder) {
    absl::StatusOr<security::TransportSecurity> security =
        security::SecurityFromCertificateDir(
            cli::LocalCertificateDir(options_.data_dir), holder);
    EXPECT_TRUE(security.ok()) << security.status();
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(kServerMaxMessageBytes);
    auto credentials = security::ChannelCredentialsFor(
        security.value_or(security::TransportSecurity()), &args);
    return grpc::CreateCustomChannel(AddressOf(service), credentials, args);
  }

  void Connect() {
    jobs_ = v1::JobService::NewStub(ChannelAs("coordinator", "client"));
    workers_ = v1::WorkerService::NewStub(ChannelAs("coordinator", "worker"));
    replay_ = v1::ReplayService::NewStub(ChannelAs("replay", "worker"));
  }

  v1::SubmitJobRequest SmallRequest() const {
    v1::SubmitJobRequest request;
    request.set_name("small");
    *request.mutable_workload() = workload_;
    request.set_preset("cpu");
    request.mutable_budget()->set_wall_seconds(600);
    return request;
  }

  // Submits and, when the job was made, waits for its seed solve (as
  // mmapctl does), so that workers can take it.
  grpc::Status Submit(const v1::SubmitJobRequest& request,
                      v1::SubmitJobResponse* response) {
    grpc::Status status;
    {
      grpc::ClientContext context;
      SetDeadline(&context);
      status = jobs_->SubmitJob(&context, request, response);
    }
    const absl::Time give_up = absl::Now() + absl::Seconds(30);
    while (status.ok() && response->job().state() == v1::JOB_STATE_SEEDING &&
           absl::Now() < give_up) {
      absl::SleepFor(absl::Milliseconds(20));
      v1::GetJobRequest get;
      get.set_job_id(response->job_id());
      grpc::ClientContext context;
      SetDeadline(&context);
      if (!jobs_->GetJob(&context, get, response->mutable_job()).ok()) break;
    }
    return status;
  }

  std::string Register(v1::WorkerRole role, const std::string& address) {
    v1::RegisterRequest request;
    request.set_role(role);
    request.set_address(address);
    request.set_name("real_binaries_bad_input_test");
    v1::RegisterResponse response;
    grpc::ClientContext context;
    SetDeadline(&context);
    const grpc::Status status =
        workers_->Register(&context, request, &response);
    EXPECT_TRUE(status.ok()) << Describe(status);
    secrets_[response.worker_id()] = response.worker_secret();
    return response.worker_id();
  }

  v1::HeartbeatResponse Heartbeat(const std::string& worker_id) {
    v1::HeartbeatRequest request;
    request.set_worker_id(worker_id);
    request.set_worker_secret(secrets_[worker_id]);
    v1::HeartbeatResponse response;
    grpc::ClientContext context;
    SetDeadline(&context);
    const grpc::Status status =
        workers_->Heartbeat(&context, request, &response);
    EXPECT_TRUE(status.ok()) << Describe(status);
    return response;
  }

  // With the actor's lease ticket unless the request has one: the
  // request's other parts are what these tests are about.
  grpc::Status Insert(v1::InsertTrajectoriesRequest request) {
    if (!request.has_lease_ticket()) {
      *request.mutable_lease_ticket() = actor_ticket_;
    }
    v1::InsertTrajectoriesResponse response;
    grpc::ClientContext context;
    SetDeadline(&context);
    return replay_->InsertTrajectories(&context, request, &response);
  }

  grpc::Status Report(v1::ReportSolutionRequest request,
                      v1::ReportSolutionResponse* response) {
    if (!request.has_lease_ticket()) {
      *request.mutable_lease_ticket() = actor_ticket_;
    }
    grpc::ClientContext context;
    SetDeadline(&context);
    return workers_->ReportSolution(&context, request, response);
  }

  // job-000001 running with this test as its learner and an actor,
  // job-000002 queued (the learner's capacity is 1), and a replay table of
  // one game for job-000001.
  void StartJobs() {
    v1::SubmitJobResponse submitted;
    ASSERT_TRUE(Submit(SmallRequest(), &submitted).ok());
    ASSERT_EQ(submitted.job_id(), kRunningJob);
    learner_ = Register(v1::WORKER_ROLE_LEARNER, "127.0.0.1:1");
    const v1::HeartbeatResponse learner = Heartbeat(learner_);
    ASSERT_EQ(learner.assignments_size(), 1);
    ASSERT_EQ(learner.assignments(0).job_id(), kRunningJob);
    ASSERT_TRUE(Submit(SmallRequest(), &submitted).ok());
    ASSERT_EQ(submitted.job_id(), kQueuedJob);
    actor_ = Register(v1::WORKER_ROLE_ACTOR, "");
    const v1::HeartbeatResponse actor = Heartbeat(actor_);
    ASSERT_EQ(actor.assignments_size(), 1);
    ASSERT_EQ(actor.assignments(0).job_id(), kRunningJob);
    actor_ticket_ = actor.assignments(0).lease_ticket();

    v1::InsertTrajectoriesRequest insert;
    insert.set_job_id(kRunningJob);
    insert.set_worker_id(actor_);
    *insert.add_trajectories() = Game(3);
    const grpc::Status inserted = Insert(insert);
    ASSERT_TRUE(inserted.ok()) << Describe(inserted);
  }

  // A well-formed game of `steps` moves with a tiny observation.
  static v1::Trajectory Game(int steps) {
    v1::Trajectory game;
    for (int i = 0; i < steps; ++i) {
      v1::TrajectoryStep* step = game.add_steps();
      step->set_occupancy(std::string(4, static_cast<char>(i)));
      step->add_vector(static_cast<float>(i));
      step->add_vector(1.0f);
      step->set_buffer(i);
      step->set_action(DROP);
      step->set_legal_mask(7);
      step->set_reward(-1.0f);
      step->set_root_value(0.5f);
      for (const float p : {0.2f, 0.3f, 0.5f}) step->add_policy(p);
    }
    game.set_episode_return(-steps);
    game.set_normalised_return(0.1);
    return game;
  }

  v1::GetBestSolutionResponse Best(const std::string& job_id,
                                   bool include_workload = false) {
    v1::GetBestSolutionRequest request;
    request.set_job_id(job_id);
    request.set_include_workload(include_workload);
    v1::GetBestSolutionResponse response;
    grpc::ClientContext context;
    SetDeadline(&context);
    const grpc::Status status =
        jobs_->GetBestSolution(&context, request, &response);
    EXPECT_TRUE(status.ok()) << Describe(status);
    return response;
  }

  // Leases expire on their own (the test stops heartbeating), so they are
  // not part of the state a request could change; nor is the replay table's
  // capacity, set again when the replay's own lease arrives.
  ClusterState State() {
    ClusterState state;
    v1::ListJobsResponse listed;
    {
      grpc::ClientContext context;
      SetDeadline(&context);
      const grpc::Status status =
          jobs_->ListJobs(&context, v1::ListJobsRequest(), &listed);
      EXPECT_TRUE(status.ok()) << Describe(status);
    }
    for (v1::JobStatus job : listed.jobs()) {
      job.clear_learner_worker_id();
      job.clear_actors();
      job.clear_reanalysers();
      state.best[job.job_id()] = Best(job.job_id());
      state.jobs.push_back(job);
    }
    v1::GetStatsRequest stats;
    stats.set_job_id(kRunningJob);
    grpc::ClientContext context;
    SetDeadline(&context);
    const grpc::Status status =
        replay_->GetStats(&context, stats, &state.replay);
    EXPECT_TRUE(status.ok()) << Describe(status);
    state.replay.clear_capacity();
    // The replay learns the job's uid from its own next heartbeat's
    // assignments, whenever that comes: not a change any request made.
    state.replay.clear_job_uid();
    return state;
  }

  // The job list, every job and best solution and the replay table are as
  // SetUp left them; both services run and serve.
  void ExpectNothingChanged() {
    const ClusterState now = State();
    ASSERT_EQ(now.jobs.size(), before_.jobs.size());
    for (size_t i = 0; i < now.jobs.size(); ++i) {
      EXPECT_TRUE(MessageDifferencer::Equals(now.jobs[i], before_.jobs[i]))
          << "before: " << before_.jobs[i].ShortDebugString()
          << "\nnow:    " << now.jobs[i].ShortDebugString();
    }
    for (const auto& [job_id, best] : before_.best) {
      const v1::GetBestSolutionResponse& after = now.best.at(job_id);
      EXPECT_TRUE(MessageDifferencer::Equals(after, best))
          << job_id << "'s best changed: normalised return "
          << best.solution().normalised_return() << " found by '"
          << best.worker_id() << "' -> " << after.solution().normalised_return()
          << " found by '" << after.worker_id() << "'";
    }
    EXPECT_TRUE(MessageDifferencer::Equals(now.replay, before_.replay))
        << "before: " << before_.replay.ShortDebugString()
        << "\nnow:    " << now.replay.ShortDebugString();
    const std::vector<cli::LocalService> services =
        cli::LocalStatus(options_.data_dir, absl::Seconds(5));
    ASSERT_EQ(services.size(), 2u);
    for (const cli::LocalService& service : services) {
      EXPECT_TRUE(service.alive)
          << service.name << " (pid " << service.pid << ") no longer runs";
      EXPECT_EQ(service.health, "SERVING") << service.name;
    }
  }

  Workload workload_;
  cli::LocalClusterOptions options_;
  bool started_ = false;
  std::unique_ptr<v1::JobService::Stub> jobs_;
  std::unique_ptr<v1::WorkerService::Stub> workers_;
  std::unique_ptr<v1::ReplayService::Stub> replay_;
  std::string learner_;
  std::string actor_;
  // RegisterResponse.worker_secret by worker id.
  std::map<std::string, std::string> secrets_;
  v1::LeaseTicket actor_ticket_;  // the actor's lease on kRunningJob
  ClusterState before_;
};

// Not bad input, but this fixture's cluster: on one machine the services
// that train (here replay) run nicer than the coordinator, every thread
// and the session's scheduling group (cli::LocalClusterOptions).
TEST_F(RealBinariesBadInputTest, ReplayRunsNicerThanTheCoordinator) {
  int checked = 0;
  const int ours = getpriority(PRIO_PROCESS, 0);  // the services' base
  for (const cli::LocalService& service :
       cli::LocalStatus(options_.data_dir, absl::Seconds(5))) {
    ASSERT_TRUE(service.alive) << service.name;
    const int by = service.name == "replay" ? options_.trainer_nice : 0;
    EXPECT_EQ(getpriority(PRIO_PROCESS, static_cast<id_t>(service.pid)),
              std::min(19, ours + by))
        << service.name;
    std::ifstream autogroup(absl::StrCat("/proc/", service.pid, "/autogroup"));
    std::string group;
    if (std::getline(autogroup, group)) {  // "/autogroup-42 nice 10"
      EXPECT_TRUE(absl::EndsWith(group, absl::StrCat(" nice ", by)))
          << service.name << ": " << group;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

TEST_F(RealBinariesBadInputTest, MalformedSubmissionIsInvalidArgument) {
  // A spoilt submission and words its message must hold (field, value).
  struct Case {
    std::string name;
    std::function<void(v1::SubmitJobRequest*)> spoil;
    std::vector<std::string> words;
  };
  const std::vector<Case> cases = {
      {"no workload",
       [](v1::SubmitJobRequest* r) { r->clear_workload(); },
       {"workload: required"}},
      {"zero-sized buffer",
       [](v1::SubmitJobRequest* r) {
         r->mutable_workload()->mutable_buffers(0)->set_size(0);
       },
       {"workload.buffers[0].size", "got 0"}},
      {"negative memory",
       [](v1::SubmitJobRequest* r) {
         r->mutable_workload()->set_memory_size(-5);
       },
       {"workload.memory_size", "got -5"}},
      {"buffer id out of place",
       [](v1::SubmitJobRequest* r) {
         r->mutable_workload()->mutable_buffers(3)->set_id(7);
       },
       {"workload.buffers[3].id", "got 7"}},
      {"use after the last instruction",
       [](v1::SubmitJobRequest* r) {
         r->mutable_workload()->mutable_buffers(5)->set_target_time(100000);
       },
       {"workload.buffers[5].target_time", "got 100000"}},
      {"inverted live range",
       [](v1::SubmitJobRequest* r) {
         LiveRange* live =
             r->mutable_workload()->mutable_buffers(2)->mutable_live_range();
         live->set_start(live->end() + 1);
       },
       {"workload.buffers[2].live_range"}},
      {"no instructions",
       [](v1::SubmitJobRequest* r) {
         r->mutable_workload()->clear_instructions();
       },
       {"workload.instructions"}},
      // The game would start at its end: actors used to abort on it.
      {"no buffers",
       [](v1::SubmitJobRequest* r) {
         r->mutable_workload()->clear_buffers();
       },
       {"workload.buffers", "no decision"}},
      {"a 5-MB job name",
       [](v1::SubmitJobRequest* r) {
         r->set_name(std::string(5 << 20, 'n'));
       },
       {"name: at most 256 bytes", "got 5242880"}},
      {"a control character in the job name",
       [](v1::SubmitJobRequest* r) { r->set_name("two\nlines"); },
       {"name: no control characters", "byte 3"}},
      {"wall budget over 24 h",
       [](v1::SubmitJobRequest* r) {
         r->mutable_budget()->set_wall_seconds(86401);
       },
       {"budget.wall_seconds", "got 86401"}},
      {"negative step budget",
       [](v1::SubmitJobRequest* r) {
         r->mutable_budget()->set_learner_steps(-1);
       },
       {"budget.learner_steps", "got -1"}},
      {"unknown preset",
       [](v1::SubmitJobRequest* r) { r->set_preset("huge"); },
       {"preset", "huge"}},
      {"config out of range",
       [](v1::SubmitJobRequest* r) {
         *r->mutable_config() = features::CpuPreset();
         r->mutable_config()->mutable_search()->set_simulations(-3);
       },
       {"config: ", "search.simulations = -3"}},
  };
  for (const Case& bad : cases) {
    SCOPED_TRACE(bad.name);
    v1::SubmitJobRequest request = SmallRequest();
    bad.spoil(&request);
    v1::SubmitJobResponse response;
    const grpc::Status status = Submit(request, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << Describe(status);
    for (const std::string& word : bad.words) {
      EXPECT_THAT(status.error_message(), HasSubstr(word));
    }
    EXPECT_EQ(response.job_id(), "");
  }
  ExpectNothingChanged();
}

TEST_F(RealBinariesBadInputTest, UnknownJobIdIsNotFound) {
  struct Id {
    std::string id;
    grpc::StatusCode code;
    std::string message;
  };
  const std::vector<Id> ids = {
      {"job-999999", grpc::StatusCode::NOT_FOUND,
       "job_id: no job 'job-999999'"},
      {"nope", grpc::StatusCode::NOT_FOUND, "job_id: no job 'nope'"},
      {"job-0", grpc::StatusCode::NOT_FOUND, "job_id: no job 'job-0'"},
      {"", grpc::StatusCode::INVALID_ARGUMENT, "job_id: required"},
  };
  for (const Id& id : ids) {
    SCOPED_TRACE("job id '" + id.id + "'");
    {
      v1::GetJobRequest request;
      request.set_job_id(id.id);
      v1::JobStatus job;
      grpc::ClientContext context;
      SetDeadline(&context);
      const grpc::Status status = jobs_->GetJob(&context, request, &job);
      EXPECT_EQ(status.error_code(), id.code) << "GetJob " << Describe(status);
      EXPECT_EQ(status.error_message(), id.message);
    }
    {
      v1::GetBestSolutionRequest request;
      request.set_job_id(id.id);
      request.set_include_workload(true);
      v1::GetBestSolutionResponse best;
      grpc::ClientContext context;
      SetDeadline(&context);
      const grpc::Status status =
          jobs_->GetBestSolution(&context, request, &best);
      EXPECT_EQ(status.error_code(), id.code)
          << "GetBestSolution " << Describe(status);
      EXPECT_EQ(status.error_message(), id.message);
    }
    {
      v1::CancelJobRequest request;
      request.set_job_id(id.id);
      request.set_reason("test");
      v1::JobStatus job;
      grpc::ClientContext context;
      SetDeadline(&context);
      const grpc::Status status = jobs_->CancelJob(&context, request, &job);
      EXPECT_EQ(status.error_code(), id.code)
          << "CancelJob " << Describe(status);
      EXPECT_EQ(status.error_message(), id.message);
    }
    {
      v1::WatchJobRequest request;
      request.set_job_id(id.id);
      grpc::ClientContext context;
      SetDeadline(&context, absl::Seconds(10));
      std::unique_ptr<grpc::ClientReader<v1::JobProgress>> watch =
          jobs_->WatchJob(&context, request);
      v1::JobProgress progress;
      EXPECT_FALSE(watch->Read(&progress)) << progress.ShortDebugString();
      const grpc::Status status = watch->Finish();
      EXPECT_EQ(status.error_code(), id.code)
          << "WatchJob " << Describe(status);
      EXPECT_EQ(status.error_message(), id.message);
    }
  }
  ExpectNothingChanged();
}

// The server refused a message over its limit: RESOURCE_EXHAUSTED in
// gRPC's own words, from the server's side, with the limit.
void ExpectRefusedAsOversized(const grpc::Status& status) {
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
      << Describe(status);
  EXPECT_THAT(status.error_message(),
              AllOf(HasSubstr("Received message larger than max"),
                    HasSubstr(absl::StrCat(" vs. ", kServerMaxMessageBytes))));
}

TEST_F(RealBinariesBadInputTest, OversizedSubmissionIsResourceExhausted) {
  v1::SubmitJobRequest request = SmallRequest();
  request.set_name(std::string(kServerMaxMessageBytes + 1024, 'x'));
  ASSERT_GT(request.ByteSizeLong(), size_t{kServerMaxMessageBytes});
  v1::SubmitJobResponse response;
  const grpc::Status status = Submit(request, &response);
  ExpectRefusedAsOversized(status);
  ExpectNothingChanged();
}

TEST_F(RealBinariesBadInputTest, OversizedReplayInsertIsResourceExhausted) {
  v1::InsertTrajectoriesRequest insert;
  insert.set_job_id(kRunningJob);
  insert.set_worker_id(actor_);
  v1::Trajectory* game = insert.add_trajectories();
  *game = Game(1);
  game->mutable_steps(0)->set_occupancy(
      std::string(kServerMaxMessageBytes + 1024, '\1'));
  ASSERT_GT(insert.ByteSizeLong(), size_t{kServerMaxMessageBytes});
  const grpc::Status status = Insert(insert);
  ExpectRefusedAsOversized(status);
  ExpectNothingChanged();
}

TEST_F(RealBinariesBadInputTest, MalformedReplayInsertIsInvalidArgument) {
  struct Case {
    std::string name;
    std::function<void(v1::InsertTrajectoriesRequest*)> spoil;
    std::vector<std::string> words;
  };
  const std::vector<Case> cases = {
      {"job id naming another folder",
       [](v1::InsertTrajectoriesRequest* r) { r->set_job_id("../job"); },
       {"job_id", "'../job'"}},
      {"no trajectories",
       [](v1::InsertTrajectoriesRequest* r) { r->clear_trajectories(); },
       {"trajectories: must not be empty"}},
      {"two-entry policy",
       [](v1::InsertTrajectoriesRequest* r) {
         r->mutable_trajectories(1)
             ->mutable_steps(2)
             ->mutable_policy()
             ->RemoveLast();
       },
       {"trajectories[1].steps[2].policy", "got 2"}},
      {"action out of range",
       [](v1::InsertTrajectoriesRequest* r) {
         r->mutable_trajectories(0)->mutable_steps(1)->set_action(
             static_cast<Action>(5));
       },
       {"trajectories[0].steps[1].action", "got 5"}},
      {"observation of another size",
       [](v1::InsertTrajectoriesRequest* r) {
         r->mutable_trajectories(0)->mutable_steps(2)->set_occupancy("ab");
       },
       {"trajectories[0].steps[2].occupancy", "size 2"}},
      {"id given by the client",
       [](v1::InsertTrajectoriesRequest* r) {
         r->mutable_trajectories(1)->set_trajectory_id(42);
       },
       {"trajectories[1].trajectory_id", "got 42"}},
  };
  for (const Case& bad : cases) {
    SCOPED_TRACE(bad.name);
    v1::InsertTrajectoriesRequest insert;
    insert.set_job_id(kRunningJob);
    insert.set_worker_id(actor_);
    *insert.add_trajectories() = Game(3);  // valid: nothing of it is kept
    *insert.add_trajectories() = Game(4);
    bad.spoil(&insert);
    const grpc::Status status = Insert(insert);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << Describe(status);
    for (const std::string& word : bad.words) {
      EXPECT_THAT(status.error_message(), HasSubstr(word));
    }
  }
  ExpectNothingChanged();
}

TEST_F(RealBinariesBadInputTest, InvalidSolutionOfARegisteredWorkerIsRefused) {
  const v1::GetBestSolutionResponse seed =
      Best(kRunningJob, /*include_workload=*/true);
  const Solution& best = seed.solution();
  ASSERT_GT(best.normalised_return(), 0);
  ASSERT_GT(best.decisions_size(), 0);
  int placed = -1;  // a decision with an offset in fast memory
  for (int i = 0; i < best.decisions_size() && placed < 0; ++i) {
    if (best.decisions(i).has_offset()) placed = i;
  }
  ASSERT_GE(placed, 0) << "the seed places nothing in fast memory";
  const int placed_id = best.decisions(placed).buffer_id();
  const int64_t placed_size = seed.workload().buffers(placed_id).size();
  const int64_t huge = std::numeric_limits<int64_t>::max() - 1000;

  // Each breaks a rule of the validator (common/validate), named as the
  // first violation.
  struct Case {
    std::string name;
    std::function<void(Solution*)> spoil;
    std::string rule;
  };
  const std::vector<Case> cases = {
      {"offset past fast memory",
       [&](Solution* s) {
         s->mutable_decisions(placed)->set_offset(
             seed.workload().memory_size());
       },
       "[offset_range]"},
      {"unknown buffer",
       [&](Solution* s) {
         s->add_decisions()->set_buffer_id(seed.workload().buffers_size() + 5);
       },
       "[unknown_buffer]"},
      {"a buffer decided twice",
       [](Solution* s) { *s->add_decisions() = s->decisions(0); },
       "[duplicate_decision]"},
      {"no decisions", [](Solution* s) { s->clear_decisions(); },
       "[missing_decision]"},
      {"negative buffer id",
       [](Solution* s) { s->mutable_decisions(0)->set_buffer_id(-1); },
       "[unknown_buffer]"},
      {"unknown action",
       [&](Solution* s) {
         s->mutable_decisions(placed)->set_action(static_cast<Action>(9));
       },
       "[unknown_action]"},
      {"negative offset",
       [&](Solution* s) { s->mutable_decisions(placed)->set_offset(-4096); },
       "[offset_range]"},
      {"interval ends before it starts",
       [&](Solution* s) {
         BufferDecision* d = s->mutable_decisions(placed);
         d->set_interval_end(d->interval_start() - 1);
       },
       "[interval_shape]"},
      {"copy past the end of the program",
       [&](Solution* s) {
         BufferDecision* d = s->mutable_decisions(placed);
         d->set_copy_start(1 << 30);
         d->set_copy_end(1 << 30);
       },
       "[interval_shape]"},
      {"huge interval",
       [&](Solution* s) {
         BufferDecision* d = s->mutable_decisions(placed);
         d->set_interval_start(-2147483647);
         d->set_interval_end(2147483647);
       },
       "[interval_shape]"},
      {"offset near int64 max",  // the end is named, not computed
       [&](Solution* s) { s->mutable_decisions(placed)->set_offset(huge); },
       absl::StrCat("[offset_range] buffer ", placed_id, ": bytes [", huge,
                    ", ", huge, " + ", placed_size, ")")},
  };
  for (const Case& bad : cases) {
    SCOPED_TRACE(bad.name);
    v1::ReportSolutionRequest request;
    request.set_job_id(kRunningJob);
    request.set_worker_id(actor_);
    request.set_parameter_version(3);
    *request.mutable_solution() = best;
    bad.spoil(request.mutable_solution());
    request.mutable_solution()->set_normalised_return(0.99);  // the claim
    v1::ReportSolutionResponse response;
    const grpc::Status status = Report(request, &response);
    // Taken and answered (docs/protocols.md): OK, not accepted, the first
    // rule broken as the reason.
    ASSERT_TRUE(status.ok()) << Describe(status);
    EXPECT_FALSE(response.accepted());
    EXPECT_THAT(response.reason(), AllOf(StartsWith("invalid: "),
                                         HasSubstr("first: " + bad.rule)));
    EXPECT_EQ(response.validated_normalised_return(), 0);
    EXPECT_EQ(response.best_normalised_return(), best.normalised_return());
  }

  // Valid, but not better than it claims: the claim is not believed.
  v1::ReportSolutionRequest request;
  request.set_job_id(kRunningJob);
  request.set_worker_id(actor_);
  *request.mutable_solution() = best;
  request.mutable_solution()->set_normalised_return(0.99);
  v1::ReportSolutionResponse response;
  const grpc::Status status = Report(request, &response);
  ASSERT_TRUE(status.ok()) << Describe(status);
  EXPECT_FALSE(response.accepted());
  EXPECT_THAT(response.reason(), AllOf(HasSubstr("not faster than the best"),
                                       HasSubstr("(claimed 0.990000)")));
  EXPECT_DOUBLE_EQ(response.validated_normalised_return(),
                   best.normalised_return());
  ExpectNothingChanged();
}

TEST_F(RealBinariesBadInputTest, BadWorkerRequestsAreRefused) {
  const Solution best = Best(kRunningJob).solution();
  struct BadReport {
    std::string name;
    std::string job_id;
    std::string worker_id;
    bool with_solution;
    grpc::StatusCode code;
    std::string message;
  };
  const std::vector<BadReport> reports = {
      {"unknown job", "job-999999", actor_, true, grpc::StatusCode::NOT_FOUND,
       "job_id: no job 'job-999999'"},
      {"unknown worker", kRunningJob, "worker-999999", true,
       grpc::StatusCode::NOT_FOUND,
       "worker_id: no worker 'worker-999999' (register again)"},
      {"malformed worker", kRunningJob, "nope", true,
       grpc::StatusCode::NOT_FOUND, "worker_id: no worker 'nope'"},
      {"no solution", kRunningJob, actor_, false,
       grpc::StatusCode::INVALID_ARGUMENT, "solution: required"},
  };
  for (const BadReport& report : reports) {
    SCOPED_TRACE("ReportSolution, " + report.name);
    v1::ReportSolutionRequest request;
    request.set_job_id(report.job_id);
    request.set_worker_id(report.worker_id);
    if (report.with_solution) *request.mutable_solution() = best;
    v1::ReportSolutionResponse response;
    const grpc::Status status = Report(request, &response);
    EXPECT_EQ(status.error_code(), report.code) << Describe(status);
    EXPECT_EQ(status.error_message(), report.message);
  }

  struct Registration {
    std::string name;
    v1::RegisterRequest request;
    std::string field;
  };
  std::vector<Registration> registrations(3);
  registrations[0].name = "no role";
  registrations[0].field = "role";
  registrations[1].name = "capacity over 1024";
  registrations[1].request.set_role(v1::WORKER_ROLE_ACTOR);
  registrations[1].request.set_capacity(5000);
  registrations[1].field = "capacity";
  registrations[2].name = "learner without an address";
  registrations[2].request.set_role(v1::WORKER_ROLE_LEARNER);
  registrations[2].field = "address";
  // Names the dashboard and metrics show: bounded and printable.
  registrations.push_back({"a 5-MB worker name", {}, "name"});
  registrations.back().request.set_role(v1::WORKER_ROLE_ACTOR);
  registrations.back().request.set_name(std::string(5 << 20, 'w'));
  registrations.push_back({"a control character in the address", {},
                           "address"});
  registrations.back().request.set_role(v1::WORKER_ROLE_LEARNER);
  registrations.back().request.set_address("10.0.0.1:7\r\n");
  for (const Registration& registration : registrations) {
    SCOPED_TRACE("Register, " + registration.name);
    v1::RegisterResponse response;
    grpc::ClientContext context;
    SetDeadline(&context);
    const grpc::Status status =
        workers_->Register(&context, registration.request, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << Describe(status);
    EXPECT_THAT(status.error_message(), StartsWith(registration.field + ": "));
    EXPECT_EQ(response.worker_id(), "");
  }

  struct Beat {
    std::string name;
    v1::HeartbeatRequest request;
    grpc::StatusCode code;
    std::string words;
  };
  std::vector<Beat> beats(3);
  beats[0].name = "negative games";
  beats[0].request.set_worker_id(actor_);
  beats[0].request.set_worker_secret(secrets_[actor_]);
  v1::JobCounters* counters = beats[0].request.add_jobs();
  counters->set_job_id(kRunningJob);
  counters->set_games(-4);
  beats[0].code = grpc::StatusCode::INVALID_ARGUMENT;
  beats[0].words = "jobs[0].games: must be >= 0, got -4";
  beats[1].name = "unknown worker";
  beats[1].request.set_worker_id("worker-999999");
  beats[1].code = grpc::StatusCode::NOT_FOUND;
  beats[1].words = "worker_id: no worker 'worker-999999'";
  beats[2].name = "no worker id";
  beats[2].code = grpc::StatusCode::INVALID_ARGUMENT;
  beats[2].words = "worker_id: required";
  for (const Beat& beat : beats) {
    SCOPED_TRACE("Heartbeat, " + beat.name);
    v1::HeartbeatResponse response;
    grpc::ClientContext context;
    SetDeadline(&context);
    const grpc::Status status =
        workers_->Heartbeat(&context, beat.request, &response);
    EXPECT_EQ(status.error_code(), beat.code) << Describe(status);
    EXPECT_THAT(status.error_message(), HasSubstr(beat.words));
    EXPECT_EQ(response.assignments_size(), 0);
  }
  ExpectNothingChanged();
}

}  // namespace
}  // namespace mmapzero
