// The network registry and jobs' networks through the real coordinator
// server on a loopback port: import, list, show, export and delete over
// gRPC (files in chunks), the refusals that store nothing, a job that
// starts from a registered network or an earlier job's (the learner
// fetching the job's own copy), the networks a learner reports, and a
// job's network registered with its lineage.
#include <grpcpp/create_channel.h>

#include <memory>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/features/config_presets.h"
#include "common/rpc/client_channel.h"
#include "common/rpc/network_stream.h"
#include "common/security/sha256.h"
#include "common/workload/proto_io.h"
#include "coordinator/coordinator_server.h"
#include "coordinator/test_deadline.h"
#include "coordinator/test_dir.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/job.grpc.pb.h"
#include "proto/network.grpc.pb.h"
#include "proto/worker.grpc.pb.h"

namespace mmapzero::coordinator {
namespace {

using ::testing::HasSubstr;

// Bytes that pass the registry's checks (a zip's magic, then noise): the
// coordinator never loads a network, its learners do.
std::string FakeNetwork(size_t size, uint32_t seed) {
  std::string bytes("PK\x03\x04", 4);
  std::mt19937 random(seed);
  while (bytes.size() < size) bytes.push_back(static_cast<char>(random()));
  return bytes;
}

class NetworkRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CoordinatorServerOptions options;
    options.listen = "127.0.0.1:0";
    options.tick_interval = absl::Hours(1);
    options.coordinator.data_dir = dir_.path();
    options.coordinator.heartbeat_interval = absl::Seconds(1);
    options.coordinator.lease_ttl = absl::Seconds(5);
    auto server = CoordinatorServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    auto channel =
        rpc::MakeClientChannel("127.0.0.1:" + std::to_string(server_->port()));
    jobs_ = v1::JobService::NewStub(channel);
    workers_ = v1::WorkerService::NewStub(channel);
    networks_ = v1::NetworkRegistry::NewStub(channel);
  }

  grpc::Status Import(const std::string& name, const std::string& bytes,
                      v1::NetworkInfo* info,
                      const std::string& from_job = "",
                      const std::string& sha256 = "") {
    v1::ImportNetworkRequest first;
    first.mutable_info()->set_name(name);
    first.mutable_info()->set_sha256(sha256);
    first.set_from_job(from_job);
    auto context = Deadlined();
    auto writer = networks_->ImportNetwork(context.get(), info);
    if (bytes.empty()) {
      writer->Write(first);
      writer->WritesDone();
    } else {
      rpc::WriteNetworkStream(writer.get(), first, bytes);
    }
    return writer->Finish();
  }

  v1::ListNetworksResponse Listed() {
    v1::ListNetworksResponse list;
    const grpc::Status status = networks_->ListNetworks(
        Deadlined().get(), v1::ListNetworksRequest(), &list);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return list;
  }

  absl::StatusOr<std::string> Export(const std::string& name) {
    v1::ExportNetworkRequest request;
    request.set_name(name);
    request.set_max_chunk_bytes(1 << 16);
    auto context = Deadlined();
    auto reader = networks_->ExportNetwork(context.get(), request);
    return rpc::ReadNetworkStream(reader.get(), int64_t{1} << 30);
  }

  // A job on examples/small.json that starts from `network`, seeded.
  std::string Submit(const std::string& network,
                     grpc::Status* status = nullptr) {
    absl::StatusOr<Workload> workload =
        ReadWorkload(std::string(MMAPZERO_SOURCE_DIR) + "/examples/small.json");
    EXPECT_TRUE(workload.ok()) << workload.status();
    v1::SubmitJobRequest request;
    *request.mutable_workload() = *workload;
    absl::StatusOr<MuZeroConfig> config =
        features::LoadMuZeroConfig("cpu", {});
    EXPECT_TRUE(config.ok());
    config->mutable_training()->set_initial_network(network);
    *request.mutable_config() = *config;
    v1::SubmitJobResponse response;
    const grpc::Status submitted =
        jobs_->SubmitJob(Deadlined().get(), request, &response);
    if (status != nullptr) *status = submitted;
    if (!submitted.ok()) return "";
    EXPECT_TRUE(server_->coordinator().AwaitSeeded(absl::Seconds(60)));
    return response.job_id();
  }

  v1::JobStatus Job(const std::string& id) {
    v1::GetJobRequest request;
    request.set_job_id(id);
    v1::JobStatus job;
    EXPECT_TRUE(jobs_->GetJob(Deadlined().get(), request, &job).ok());
    return job;
  }

  // A registered learner holding the lease of the one queued job: its
  // id and the assignment's config.
  std::pair<std::string, MuZeroConfig> TakeLearnerLease() {
    v1::RegisterRequest request;
    request.set_role(v1::WORKER_ROLE_LEARNER);
    request.set_address("127.0.0.1:1");
    request.set_capacity(1);
    v1::RegisterResponse registered;
    EXPECT_TRUE(
        workers_->Register(Deadlined().get(), request, &registered).ok());
    v1::HeartbeatRequest heartbeat;
    heartbeat.set_worker_id(registered.worker_id());
    v1::HeartbeatResponse response;
    EXPECT_TRUE(
        workers_->Heartbeat(Deadlined().get(), heartbeat, &response).ok());
    EXPECT_EQ(response.assignments_size(), 1);
    return {registered.worker_id(), response.assignments_size() > 0
                                        ? response.assignments(0).config()
                                        : MuZeroConfig()};
  }

  absl::StatusOr<std::string> FetchStart(const std::string& worker,
                                         const std::string& job) {
    v1::FetchJobNetworkRequest request;
    request.set_worker_id(worker);
    request.set_job_id(job);
    auto context = Deadlined();
    auto reader = workers_->FetchJobNetwork(context.get(), request);
    return rpc::ReadNetworkStream(reader.get(), int64_t{1} << 30);
  }

  grpc::Status ReportNetwork(const std::string& worker, const std::string& job,
                             int64_t step, const std::string& bytes,
                             v1::ReportJobNetworkResponse* response) {
    v1::ReportJobNetworkRequest first;
    first.set_worker_id(worker);
    first.set_job_id(job);
    first.set_learner_step(step);
    auto context = Deadlined();
    auto writer = workers_->ReportJobNetwork(context.get(), response);
    rpc::WriteNetworkStream(writer.get(), first, bytes);
    return writer->Finish();
  }

  TestDir dir_;
  std::unique_ptr<CoordinatorServer> server_;
  std::unique_ptr<v1::JobService::Stub> jobs_;
  std::unique_ptr<v1::WorkerService::Stub> workers_;
  std::unique_ptr<v1::NetworkRegistry::Stub> networks_;
};

TEST_F(NetworkRegistryTest, ImportListShowExportAndDelete) {
  // Over three chunks each way.
  const std::string bytes = FakeNetwork(2'500'000, 1);
  v1::NetworkInfo info;
  const grpc::Status imported = Import("family-net.v1", bytes, &info, "",
                                       security::Sha256Hex(bytes));
  ASSERT_TRUE(imported.ok()) << imported.error_message();
  EXPECT_EQ(info.name(), "family-net.v1");
  EXPECT_EQ(info.sha256(), security::Sha256Hex(bytes));
  EXPECT_EQ(info.size_bytes(), 2'500'000);
  EXPECT_EQ(info.source(), "import");
  EXPECT_EQ(info.owner(), "");  // nobody is authenticated here
  EXPECT_GT(info.created_unix_ms(), 0);

  const v1::ListNetworksResponse list = Listed();
  ASSERT_EQ(list.networks_size(), 1);
  EXPECT_EQ(list.networks(0).sha256(), info.sha256());
  const absl::StatusOr<std::string> exported = Export("family-net.v1");
  ASSERT_TRUE(exported.ok()) << exported.status();
  EXPECT_EQ(*exported, bytes);

  v1::DeleteNetworkRequest remove;
  remove.set_name("family-net.v1");
  v1::DeleteNetworkResponse removed;
  ASSERT_TRUE(
      networks_->DeleteNetwork(Deadlined().get(), remove, &removed).ok());
  v1::GetNetworkRequest get;
  get.set_name("family-net.v1");
  const grpc::Status gone = networks_->GetNetwork(Deadlined().get(), get, &info);
  EXPECT_EQ(gone.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(networks_->DeleteNetwork(Deadlined().get(), remove, &removed)
                .error_code(),
            grpc::StatusCode::NOT_FOUND);
}

TEST_F(NetworkRegistryTest, BadImportsAreRefusedNamingTheFieldAndStoreNothing) {
  const std::string bytes = FakeNetwork(1000, 2);
  v1::NetworkInfo info;
  ASSERT_TRUE(Import("taken", bytes, &info).ok());

  struct Case {
    std::string name, bytes, sha256, from_job;
    grpc::StatusCode code;
    std::string message;
  };
  const Case cases[] = {
      {"taken", bytes, "", "", grpc::StatusCode::ALREADY_EXISTS, "exists"},
      {"job-000001", bytes, "", "", grpc::StatusCode::INVALID_ARGUMENT,
       "info.name: 'job-000001' is not a network name"},
      {"default", bytes, "", "", grpc::StatusCode::INVALID_ARGUMENT,
       "info.name"},
      {"a/b", bytes, "", "", grpc::StatusCode::INVALID_ARGUMENT, "info.name"},
      {std::string(65, 'n'), bytes, "", "", grpc::StatusCode::INVALID_ARGUMENT,
       "1-64 characters"},
      {"text", "just some text", "", "", grpc::StatusCode::INVALID_ARGUMENT,
       "not a network file"},
      {"mismatch", bytes, std::string(64, 'a'), "",
       grpc::StatusCode::INVALID_ARGUMENT, "info.sha256"},
      {"nojob", "", "", "job-000042", grpc::StatusCode::NOT_FOUND,
       "job-000042"},
      {"empty", "", "", "", grpc::StatusCode::INVALID_ARGUMENT, "no bytes"},
  };
  for (const Case& c : cases) {
    const grpc::Status status =
        Import(c.name, c.bytes, &info, c.from_job, c.sha256);
    EXPECT_EQ(status.error_code(), c.code) << c.name;
    EXPECT_THAT(status.error_message(), HasSubstr(c.message)) << c.name;
  }
  const v1::ListNetworksResponse list = Listed();
  ASSERT_EQ(list.networks_size(), 1);
  EXPECT_EQ(list.networks(0).name(), "taken");
}

TEST_F(NetworkRegistryTest, AJobStartsFromItsOwnCopyOfARegisteredNetwork) {
  const std::string bytes = FakeNetwork(300'000, 3);
  v1::NetworkInfo info;
  ASSERT_TRUE(Import("warm", bytes, &info).ok());
  grpc::Status refused;
  EXPECT_EQ(Submit("cold", &refused), "");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error_message(),
              HasSubstr("config.training.initial_network: no network named "
                        "'cold' in the registry"));
  EXPECT_EQ(Submit("sha256:" + info.sha256(), &refused), "");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  const std::string job = Submit("warm");
  ASSERT_EQ(job, "job-000001");  // the refusals made no job
  EXPECT_EQ(Job(job).initial_network(), "warm");
  // Deleting the registered network leaves the job's copy.
  v1::DeleteNetworkRequest remove;
  remove.set_name("warm");
  v1::DeleteNetworkResponse removed;
  ASSERT_TRUE(
      networks_->DeleteNetwork(Deadlined().get(), remove, &removed).ok());

  const auto [learner, config] = TakeLearnerLease();
  EXPECT_EQ(config.training().initial_network(), "sha256:" + info.sha256());
  const absl::StatusOr<std::string> fetched = FetchStart(learner, job);
  ASSERT_TRUE(fetched.ok()) << fetched.status();
  EXPECT_EQ(*fetched, bytes);
  // Only the job's learner may fetch it.
  v1::RegisterRequest actor;
  actor.set_role(v1::WORKER_ROLE_ACTOR);
  actor.set_capacity(1);
  v1::RegisterResponse registered;
  ASSERT_TRUE(workers_->Register(Deadlined().get(), actor, &registered).ok());
  const absl::StatusOr<std::string> stranger =
      FetchStart(registered.worker_id(), job);
  EXPECT_EQ(stranger.status().code(), absl::StatusCode::kPermissionDenied);
}

TEST_F(NetworkRegistryTest, ALearnersNetworkBecomesTheJobsAndCarriesItsLineage) {
  const std::string first = Submit("none");
  EXPECT_EQ(Job(first).initial_network(), "none");
  const auto [learner, config] = TakeLearnerLease();
  EXPECT_EQ(config.training().initial_network(), "none");

  const std::string step_100 = FakeNetwork(5000, 4);
  v1::ReportJobNetworkResponse response;
  ASSERT_TRUE(ReportNetwork(learner, first, 100, step_100, &response).ok());
  EXPECT_TRUE(response.accepted());
  ASSERT_TRUE(
      ReportNetwork(learner, first, 50, FakeNetwork(5000, 5), &response).ok());
  EXPECT_FALSE(response.accepted());  // older than the one kept
  EXPECT_THAT(response.reason(), HasSubstr("step 100"));
  const grpc::Status stranger =
      ReportNetwork("worker-000099", first, 200, step_100, &response);
  EXPECT_EQ(stranger.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  v1::JobStatus status = Job(first);
  EXPECT_EQ(status.network_sha256(), security::Sha256Hex(step_100));
  EXPECT_EQ(status.network_learner_step(), 100);

  // The job ends (cancelled); its learner's final save still counts.
  v1::CancelJobRequest cancel;
  cancel.set_job_id(first);
  ASSERT_TRUE(jobs_->CancelJob(Deadlined().get(), cancel, &status).ok());
  const std::string final_save = FakeNetwork(5000, 6);
  ASSERT_TRUE(ReportNetwork(learner, first, 120, final_save, &response).ok());
  EXPECT_TRUE(response.accepted());

  // A second job starts from the first's network.
  const std::string second = Submit(first);
  EXPECT_EQ(Job(second).initial_network(), first);
  const auto [learner2, config2] = TakeLearnerLease();
  EXPECT_EQ(config2.training().initial_network(),
            "sha256:" + security::Sha256Hex(final_save));
  const absl::StatusOr<std::string> fetched = FetchStart(learner2, second);
  ASSERT_TRUE(fetched.ok()) << fetched.status();
  EXPECT_EQ(*fetched, final_save);
  // Trained 30 steps (its learner counts from 0), then registered: both
  // jobs in its lineage.
  ASSERT_TRUE(
      ReportNetwork(learner2, second, 30, FakeNetwork(5000, 7), &response)
          .ok());
  // A job's network reads and exports by the job's id too.
  v1::GetNetworkRequest get;
  get.set_name(second);
  v1::NetworkInfo by_id;
  ASSERT_TRUE(networks_->GetNetwork(Deadlined().get(), get, &by_id).ok());
  EXPECT_EQ(by_id.name(), second);
  EXPECT_EQ(by_id.trained_on_size(), 2);
  const absl::StatusOr<std::string> exported = Export(second);
  ASSERT_TRUE(exported.ok()) << exported.status();
  EXPECT_EQ(*exported, FakeNetwork(5000, 7));
  get.set_name("job-000099");
  EXPECT_EQ(networks_->GetNetwork(Deadlined().get(), get, &by_id).error_code(),
            grpc::StatusCode::NOT_FOUND);
  v1::NetworkInfo info;
  const grpc::Status registered = Import("chain", "", &info, second);
  ASSERT_TRUE(registered.ok()) << registered.error_message();
  EXPECT_EQ(info.source(), second);
  EXPECT_EQ(info.learner_steps(), 150);
  ASSERT_EQ(info.trained_on_size(), 2);
  EXPECT_EQ(info.trained_on(0).job_id(), first);
  EXPECT_EQ(info.trained_on(0).learner_steps(), 120);
  EXPECT_EQ(info.trained_on(1).job_id(), second);
  EXPECT_EQ(info.trained_on(1).learner_steps(), 30);
  EXPECT_EQ(info.trained_on(1).workload_name(), Job(second).workload_name());
  EXPECT_TRUE(security::IsSha256Hex(info.trained_on(1).workload_sha256()));
  EXPECT_EQ(info.trained_on(0).workload_sha256(),
            info.trained_on(1).workload_sha256());  // the same workload
}

}  // namespace
}  // namespace mmapzero::coordinator
