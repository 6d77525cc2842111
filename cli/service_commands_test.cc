// The service commands (submit, list, status, watch, best, cancel, local)
// refuse bad arguments before they contact anything, with messages naming
// the flag or file; JobClient and CheckHealth against a small fake
// JobService on a loopback port.
#include <grpcpp/grpcpp.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/time/clock.h"
#include "cli/commands.h"
#include "cli/health_check.h"
#include "cli/job_client.h"
#include "common/rpc/grpc_server.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::cli {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

const std::string kWorkload =
    std::string(MMAPZERO_SOURCE_DIR) + "/examples/small.json";

class ServiceCommandsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // No coordinator from the environment; an empty data dir of our own.
    unsetenv("MMAPZERO_COORDINATOR");
    unsetenv("MMAPZERO_DATA_DIR");
    data_dir_ = ::testing::TempDir() + "/service_commands_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(data_dir_);
    std::filesystem::create_directories(data_dir_);
  }

  // The message of `command`'s error; "" when it succeeded.
  std::string ErrorOf(absl::Status (*command)(const Args&), Args args) {
    args.push_back("--data-dir=" + data_dir_);
    ::testing::internal::CaptureStdout();
    const absl::Status status = command(args);
    out_ = ::testing::internal::GetCapturedStdout();
    return std::string(status.message());
  }

  std::string data_dir_;
  std::string out_;
};

TEST_F(ServiceCommandsTest, SubmitNamesTheBadFlag) {
  EXPECT_THAT(ErrorOf(RunSubmit, {}), HasSubstr("usage: mmapctl submit"));
  EXPECT_THAT(ErrorOf(RunSubmit, {kWorkload, "--budget", "soon"}),
              HasSubstr("--budget: not a duration: 'soon'"));
  EXPECT_THAT(ErrorOf(RunSubmit, {kWorkload, "--budget", "25h"}),
              HasSubstr("--budget: at most 24h, got '25h'"));
  EXPECT_THAT(ErrorOf(RunSubmit, {kWorkload, "--budget", "-3s"}),
              HasSubstr("--budget: must be > 0"));
  EXPECT_THAT(ErrorOf(RunSubmit, {kWorkload, "--steps", "-1"}),
              HasSubstr("--steps: must be >= 0"));
  EXPECT_THAT(ErrorOf(RunSubmit, {kWorkload, "--config", "no_such.json"}),
              HasSubstr("--config: not a preset"));
  EXPECT_THAT(ErrorOf(RunSubmit, {kWorkload, "--frobnicate", "1"}),
              HasSubstr("unknown flag --frobnicate"));
}

TEST_F(ServiceCommandsTest, SubmitChecksTheWorkloadBeforeConnecting) {
  const std::string missing = data_dir_ + "/no_such_workload.json";
  EXPECT_THAT(ErrorOf(RunSubmit, {missing}), HasSubstr(missing));
  const std::string broken = data_dir_ + "/broken.json";
  std::ofstream(broken) << "{\"buffers\": [";
  EXPECT_THAT(ErrorOf(RunSubmit, {broken}), HasSubstr(broken));
  EXPECT_THAT(ErrorOf(RunSubmit, {kWorkload, "--start", missing}),
              AllOf(HasSubstr("--start"), HasSubstr(missing)));
}

TEST_F(ServiceCommandsTest, WithoutACoordinatorSaysWhereItLooked) {
  EXPECT_THAT(ErrorOf(RunSubmit, {kWorkload}),
              HasSubstr("no coordinator address"));
  EXPECT_THAT(ErrorOf(RunList, {}), HasSubstr(data_dir_ + "/coordinator.addr"));
}

TEST_F(ServiceCommandsTest, OtherCommandsNameTheBadArgument) {
  EXPECT_THAT(ErrorOf(RunList, {"--state", "sleeping"}),
              HasSubstr("--state: unknown state 'sleeping'"));
  EXPECT_THAT(ErrorOf(RunList, {"--limit", "-1"}), HasSubstr("--limit"));
  EXPECT_THAT(ErrorOf(RunStatus, {}), HasSubstr("usage: mmapctl status"));
  EXPECT_THAT(ErrorOf(RunStatus, {"job-1", "job-2"}),
              HasSubstr("expected 1 argument(s), got 2"));
  EXPECT_THAT(ErrorOf(RunBest, {"job-000001"}), HasSubstr("--out is required"));
  EXPECT_THAT(ErrorOf(RunWatch, {"job-000001", "--for", "0s"}),
              HasSubstr("--for: must be > 0"));
  EXPECT_THAT(ErrorOf(RunCancel, {}), HasSubstr("usage: mmapctl cancel"));
  EXPECT_THAT(ErrorOf(RunStatus, {"job-000001", "--timeout", "x"}),
              HasSubstr("--timeout: not a duration"));
}

TEST_F(ServiceCommandsTest, LocalNamesTheBadArgument) {
  EXPECT_THAT(ErrorOf(RunLocal, {}), HasSubstr("usage: mmapctl local"));
  EXPECT_THAT(ErrorOf(RunLocal, {"sideways"}),
              HasSubstr("unknown action 'sideways'"));
  EXPECT_THAT(ErrorOf(RunLocal, {"up", "--only", "replay"}),
              HasSubstr("--only: must include coordinator"));
  EXPECT_THAT(ErrorOf(RunLocal, {"up", "--only", "coordinator,cache"}),
              HasSubstr("--only: unknown service 'cache'"));
  EXPECT_THAT(ErrorOf(RunLocal, {"up", "--actors", "65"}),
              HasSubstr("--actors: must be in [0, 64], got 65"));
  const std::string empty_bin = data_dir_ + "/bin";
  std::filesystem::create_directories(empty_bin);
  EXPECT_THAT(ErrorOf(RunLocal, {"up", "--bin-dir", empty_bin}),
              HasSubstr("not built (no executable in " + empty_bin +
                        "): mmapzero-actor, mmapzero-coordinator"));
  EXPECT_FALSE(std::filesystem::exists(data_dir_ + "/coordinator.pid"));
}

TEST_F(ServiceCommandsTest, LocalDownAndStatusOfNothingAreFine) {
  EXPECT_EQ(ErrorOf(RunLocal, {"down"}), "");
  EXPECT_THAT(out_, HasSubstr("no local cluster in " + data_dir_));
  EXPECT_EQ(ErrorOf(RunLocal, {"status"}), "");
  EXPECT_THAT(out_, HasSubstr("no local cluster in " + data_dir_));
}

TEST_F(ServiceCommandsTest, CoordinatorAddressPrecedence) {
  const auto address = [this](const Args& args) {
    Args with_dir = args;
    with_dir.push_back("--data-dir=" + data_dir_);
    const auto line = CommandLine::Parse(with_dir, WithClientFlags({}), {});
    EXPECT_TRUE(line.ok());
    const absl::StatusOr<std::string> result = CoordinatorAddress(*line);
    return result.ok() ? *result : std::string(result.status().message());
  };
  EXPECT_THAT(address({}), HasSubstr("no coordinator address"));
  std::ofstream(data_dir_ + "/coordinator.addr") << "127.0.0.1:1111\n";
  EXPECT_EQ(address({}), "127.0.0.1:1111");
  setenv("MMAPZERO_COORDINATOR", "10.0.0.1:2222", 1);
  EXPECT_EQ(address({}), "10.0.0.1:2222");
  EXPECT_EQ(address({"--coordinator", "h:3333"}), "h:3333");
  unsetenv("MMAPZERO_COORDINATOR");
}

TEST(ParseDurationFlagTest, AcceptsUnitsAndPlainSeconds) {
  EXPECT_EQ(*ParseDurationFlag("budget", "10m"), absl::Minutes(10));
  EXPECT_EQ(*ParseDurationFlag("budget", "24h"), absl::Hours(24));
  EXPECT_EQ(*ParseDurationFlag("budget", "90"), absl::Seconds(90));
  EXPECT_FALSE(ParseDurationFlag("budget", "inf").ok());
  EXPECT_FALSE(ParseDurationFlag("budget", "0").ok());
}

// JobService with a job "job-000001" that is running, then done.
class FakeJobService final : public v1::JobService::Service {
 public:
  grpc::Status GetJob(grpc::ServerContext*, const v1::GetJobRequest* request,
                      v1::JobStatus* response) override {
    if (request->job_id() != "job-000001") {
      return {grpc::StatusCode::NOT_FOUND,
              "job_id: no job '" + request->job_id() + "'"};
    }
    response->set_job_id("job-000001");
    return grpc::Status::OK;
  }
  grpc::Status WatchJob(grpc::ServerContext*, const v1::WatchJobRequest*,
                        grpc::ServerWriter<v1::JobProgress>* writer) override {
    v1::JobProgress progress;
    progress.mutable_job()->set_state(v1::JOB_STATE_RUNNING);
    progress.mutable_job()->set_learner_step(5);
    writer->Write(progress);
    progress.mutable_job()->set_state(v1::JOB_STATE_DONE);
    progress.mutable_job()->set_learner_step(9);
    progress.set_best_improved(true);
    writer->Write(progress);
    return grpc::Status::OK;
  }
};

class JobClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<rpc::StartedServer> started =
        rpc::StartGrpcServer({.listen = "127.0.0.1:0",
                              .services = {&service_},
                              .service_names = {"mmapzero.v1.JobService"}});
    ASSERT_TRUE(started.ok()) << started.status();
    server_ = std::move(*started);
    address_ = "127.0.0.1:" + std::to_string(server_.port);
  }
  void TearDown() override { server_.server->Shutdown(); }

  FakeJobService service_;
  rpc::StartedServer server_;
  std::string address_;
};

TEST_F(JobClientTest, NotFoundNamesTheJob) {
  JobClient client(address_, absl::Seconds(5));
  EXPECT_TRUE(client.Get("job-000001").ok());
  const absl::Status status = client.Get("job-000042").status();
  EXPECT_TRUE(absl::IsNotFound(status));
  EXPECT_THAT(status.message(), HasSubstr("no job 'job-000042'"));
}

TEST_F(JobClientTest, WatchEndsAtTheFinalState) {
  JobClient client(address_, absl::Seconds(5));
  std::vector<int64_t> steps;
  ASSERT_TRUE(client
                  .Watch("job-000001", absl::Seconds(5),
                         [&](const v1::JobProgress& progress) {
                           steps.push_back(progress.job().learner_step());
                         })
                  .ok());
  EXPECT_THAT(steps, ::testing::ElementsAre(5, 9));
}

TEST_F(JobClientTest, HealthIsServingThenNotServing) {
  EXPECT_EQ(CheckHealth(address_, absl::Seconds(2)).text, "SERVING");
  rpc::SetServing(*server_.server, {}, false);
  const HealthResult health = CheckHealth(address_, absl::Seconds(2));
  EXPECT_FALSE(health.serving);
  EXPECT_EQ(health.text, "NOT_SERVING");
}

TEST(JobClientDownTest, AnAbsentCoordinatorIsUnavailable) {
  // Port 1 on loopback: nothing listens there.
  JobClient client("127.0.0.1:1", absl::Seconds(2));
  const absl::Status status = client.Get("job-000001").status();
  EXPECT_TRUE(absl::IsUnavailable(status)) << status;
  EXPECT_THAT(status.message(), HasSubstr("no coordinator at 127.0.0.1:1"));
  EXPECT_THAT(CheckHealth("127.0.0.1:1", absl::Seconds(2)).text,
              HasSubstr("unreachable"));
}

}  // namespace
}  // namespace mmapzero::cli
