// Test-only: a small real cluster around one worker under test. A real
// coordinator (CoordinatorServer on a loopback port, its SQLite file in a
// temporary folder) plus in-test ReplayService and ParameterService servers
// registered with it as the job's replay server and learner, so that a
// submitted job runs and an actor or reanalyse worker started against the
// coordinator gets both addresses in its assignment. The fakes record what
// they are sent. Shared by actor_tests and reanalyse_tests.
#ifndef MMAPZERO_WORKER_TEST_CLUSTER_H_
#define MMAPZERO_WORKER_TEST_CLUSTER_H_

#include <grpcpp/server_context.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/base/guarded.h"
#include "common/features/config_presets.h"
#include "common/model/compute_threads.h"
#include "common/model/network_checkpoint.h"
#include "common/rpc/grpc_server.h"
#include "common/rpc/parameter_client.h"
#include "common/training/self_play.h"
#include "common/workload/proto_io.h"
#include "coordinator/coordinator_server.h"
#include "coordinator/test_dir.h"
#include "gtest/gtest.h"
#include "proto/parameters.grpc.pb.h"
#include "proto/replay.grpc.pb.h"
#include "worker/fake_replay_service.h"
#include "worker/wait_for.h"

namespace mmapzero::worker {

// Serves one snapshot (version 0: none yet) in chunks of `chunk` bytes.
class FakeParameterService final : public v1::ParameterService::Service {
 public:
  void Set(int64_t version, std::string bytes) {
    snapshot_.Update([&](Snapshot& snapshot) {
      snapshot.version = version;
      snapshot.bytes = std::move(bytes);
    });
  }
  grpc::Status GetLatestVersion(grpc::ServerContext*,
                                const v1::GetLatestVersionRequest* request,
                                v1::ParameterVersion* response) override {
    return snapshot_.Read([&](const Snapshot& snapshot) {
      response->set_job_id(request->job_id());
      response->set_version(snapshot.version);
      response->set_total_bytes(static_cast<int64_t>(snapshot.bytes.size()));
      response->set_format(model::kNetworkParametersFormat);
      response->set_crc32c(rpc::Crc32c(snapshot.bytes));
      return grpc::Status::OK;
    });
  }
  grpc::Status FetchParameters(
      grpc::ServerContext*, const v1::FetchParametersRequest*,
      grpc::ServerWriter<v1::ParameterChunk>* writer) override {
    return snapshot_.Update([&](Snapshot& snapshot) {
      if (snapshot.version == 0) {
        return grpc::Status(grpc::NOT_FOUND, "no version");
      }
      ++snapshot.fetches;
      const std::string& bytes = snapshot.bytes;
      constexpr size_t kChunk = 64 << 10;
      for (size_t offset = 0; offset < bytes.size(); offset += kChunk) {
        v1::ParameterChunk chunk;
        chunk.set_version(snapshot.version);
        chunk.set_offset(static_cast<int64_t>(offset));
        chunk.set_total_bytes(static_cast<int64_t>(bytes.size()));
        chunk.set_data(bytes.substr(offset, kChunk));
        if (offset == 0) {
          chunk.set_format(model::kNetworkParametersFormat);
          chunk.set_crc32c(rpc::Crc32c(bytes));
        }
        writer->Write(chunk);
      }
      return grpc::Status::OK;
    });
  }
  int fetches() const {
    return snapshot_.Read(
        [](const Snapshot& snapshot) { return snapshot.fetches; });
  }

 private:
  struct Snapshot {
    int64_t version = 0;
    std::string bytes;
    int fetches = 0;
  };
  Guarded<Snapshot> snapshot_;
};

// The CPU preset made tiny: 4 simulations, 2 games at once.
inline MuZeroConfig TinyConfig() {
  MuZeroConfig config = features::CpuPreset();
  config.mutable_search()->set_simulations(4);
  config.mutable_search()->set_batch_games(2);
  return config;
}

// Parameters of a network of `config`'s sizes (seeded), serialised.
inline std::string ParametersOf(const MuZeroConfig& config, uint64_t seed) {
  torch::manual_seed(seed);
  absl::StatusOr<model::MuZeroNetwork> network = model::CreateNetwork(
      config.network(), model::ShapeOf(config.features()), torch::kCPU);
  EXPECT_TRUE(network.ok()) << network.status();
  absl::StatusOr<std::string> bytes =
      model::SerializeNetworkParameters(*network);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return *bytes;
}

class TestCluster {
 public:
  // `seed_solver` seeds each job's best ("drop-all": easily beaten).
  explicit TestCluster(const std::string& seed_solver = "drop-all") {
    model::SetComputeThreads(1);
    coordinator::CoordinatorServerOptions options;
    options.listen = "127.0.0.1:0";
    options.tick_interval = absl::Hours(1);
    options.coordinator.data_dir = dir_.path();
    options.coordinator.seed_solver = seed_solver;
    options.coordinator.heuristic_budget = absl::Milliseconds(500);
    options.coordinator.heartbeat_interval = absl::Milliseconds(200);
    options.coordinator.lease_ttl = absl::Seconds(60);
    absl::StatusOr<std::unique_ptr<coordinator::CoordinatorServer>> server =
        coordinator::CoordinatorServer::Start(options);
    EXPECT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    absl::StatusOr<rpc::StartedServer> peers =
        rpc::StartGrpcServer(rpc::GrpcServerOptions{
            .listen = "127.0.0.1:0",
            .services = {&replay_, &parameters_},
            .service_names = {"mmapzero.v1.ReplayService",
                              "mmapzero.v1.ParameterService"}});
    EXPECT_TRUE(peers.ok()) << peers.status();
    peers_ = *std::move(peers);
  }
  ~TestCluster() {
    peers_.server->Shutdown(std::chrono::system_clock::now());
    server_->Shutdown(absl::ZeroDuration());
  }

  std::string coordinator_address() const {
    return absl::StrCat("127.0.0.1:", server_->port());
  }
  std::string peer_address() const {
    return absl::StrCat("127.0.0.1:", peers_.port);
  }
  coordinator::Coordinator& coordinator() { return server_->coordinator(); }
  FakeReplayService& replay() { return replay_; }
  FakeParameterService& parameters() { return parameters_; }

  // Submits examples/small.json with `config` and makes it run: the fake
  // learner and replay take their leases. Returns the job id.
  // `padding_bytes` > 0 adds provenance entries of that many bytes in all,
  // to make the assignment that carries the workload that large.
  std::string SubmitRunningJob(const MuZeroConfig& config,
                               int64_t padding_bytes = 0) {
    absl::StatusOr<Workload> workload =
        ReadWorkload(std::string(MMAPZERO_SOURCE_DIR) + "/examples/small.json");
    EXPECT_TRUE(workload.ok()) << workload.status();
    for (int64_t i = 0; i * 4000 < padding_bytes; ++i) {
      (*workload->mutable_provenance())[absl::StrCat("padding.", i)] =
          std::string(4000, 'p');
    }
    v1::SubmitJobRequest request;
    request.set_name("small");
    *request.mutable_workload() = *workload;
    *request.mutable_config() = config;
    request.mutable_budget()->set_wall_seconds(600);
    absl::StatusOr<v1::SubmitJobResponse> submitted =
        coordinator().SubmitJob(request);
    EXPECT_TRUE(submitted.ok()) << submitted.status();
    EXPECT_TRUE(coordinator().AwaitSeeded(absl::Seconds(30)));
    HeartbeatAs(v1::WORKER_ROLE_LEARNER);
    HeartbeatAs(v1::WORKER_ROLE_REPLAY);
    return submitted->job_id();
  }

  v1::JobStatus Job(const std::string& job_id) {
    v1::GetJobRequest request;
    request.set_job_id(job_id);
    absl::StatusOr<v1::JobStatus> job = coordinator().GetJob(request);
    EXPECT_TRUE(job.ok()) << job.status();
    return job.ok() ? *job : v1::JobStatus();
  }

 private:
  // Registers (once) a worker of `role` at the fake peers' address and
  // heartbeats it, so that it takes its lease on the running jobs.
  void HeartbeatAs(v1::WorkerRole role) {
    v1::RegisterRequest request;
    request.set_role(role);
    request.set_address(peer_address());
    request.set_name(v1::WorkerRole_Name(role));
    absl::StatusOr<v1::RegisterResponse> registered =
        coordinator().Register(request);
    ASSERT_TRUE(registered.ok()) << registered.status();
    v1::HeartbeatRequest heartbeat;
    heartbeat.set_worker_id(registered->worker_id());
    absl::StatusOr<v1::HeartbeatResponse> response =
        coordinator().Heartbeat(heartbeat);
    ASSERT_TRUE(response.ok()) << response.status();
    EXPECT_EQ(response->assignments_size(), 1) << v1::WorkerRole_Name(role);
  }

  coordinator::TestDir dir_;
  std::unique_ptr<coordinator::CoordinatorServer> server_;
  FakeReplayService replay_;
  FakeParameterService parameters_;
  rpc::StartedServer peers_;
};

}  // namespace mmapzero::worker

#endif  // MMAPZERO_WORKER_TEST_CLUSTER_H_
