// Fuzzes the replay server's remote surface: every method of ReplayService
// (inserts, samples for the learner and for reanalyse, target updates,
// stats), fed fuzzed request bytes through a real standalone ReplayServer
// over an in-process channel (rpc_fuzz_driver.h). Whatever arrives, the
// server answers and goes on serving: after each input it must still give
// a table's stats. With MMAPZERO_FUZZ_SEED_DIR set it writes valid call
// sequences for every method there (the seed corpus) and exits.
//
// The server keeps its tables for MMAPZERO_FUZZ_INPUTS_PER_SERVER inputs
// (default 64), then starts again empty; set it to 1 to replay a crash
// input on a fresh server.
#include <grpcpp/grpcpp.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "common/agent/trajectory_proto.h"
#include "fuzz/fuzz_util.h"
#include "fuzz/rpc_fuzz_driver.h"
#include "proto/replay.grpc.pb.h"
#include "replay/replay_server.h"
#include "replay/test_trajectories.h"

namespace {

using namespace mmapzero;

const fuzz::RpcFuzzDriver& Driver() {
  static const fuzz::RpcFuzzDriver* driver =
      new fuzz::RpcFuzzDriver({"mmapzero.v1.ReplayService"});
  return *driver;
}

bool WriteSeeds(const std::string& dir) {
  const fuzz::RpcFuzzDriver& driver = Driver();
  v1::InsertTrajectoriesRequest insert;
  insert.set_job_id("job-000001");
  insert.set_worker_id("worker-000001");
  for (int steps = 3; steps <= 6; ++steps) {
    *insert.add_trajectories() = replay::MakeProto(steps);
  }
  v1::SampleBatchRequest sample;
  sample.set_job_id("job-000001");
  sample.set_batch_size(4);
  sample.set_unroll_steps(2);
  sample.set_td_steps(3);
  sample.set_discount(0.99);
  sample.set_seed(7);
  v1::SampleForReanalyseRequest reanalyse;
  reanalyse.set_job_id("job-000001");
  reanalyse.set_count(2);
  reanalyse.set_seed(7);
  v1::UpdateTargetsRequest update;
  update.set_job_id("job-000001");
  v1::TargetUpdate& target = *update.add_updates();
  target.set_trajectory_id(1);
  target.set_first_step(0);
  for (int i = 0; i < 3; ++i) {
    target.add_root_values(0.5f * i);
    for (int a = 0; a < 3; ++a) target.add_policies(1.0f / 3);
  }
  target.set_parameter_version(9);
  v1::GetStatsRequest stats;
  stats.set_job_id("job-000001");
  return fuzz::WriteSeed(
      dir, "replay.seed",
      driver.Encode(
          {{"ReplayService.InsertTrajectories", {insert.SerializeAsString()}},
           {"ReplayService.GetStats", {stats.SerializeAsString()}},
           {"ReplayService.SampleBatch", {sample.SerializeAsString()}},
           {"ReplayService.SampleForReanalyse",
            {reanalyse.SerializeAsString()}},
           {"ReplayService.UpdateTargets", {update.SerializeAsString()}},
           {"ReplayService.SampleBatch", {sample.SerializeAsString()}}}));
}

std::unique_ptr<replay::ReplayServer> StartReplay() {
  replay::ReplayServerOptions options;
  options.listen = "127.0.0.1:0";
  absl::StatusOr<std::unique_ptr<replay::ReplayServer>> server =
      replay::ReplayServer::Start(options);
  fuzz::Require(server.ok());
  return *std::move(server);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  fuzz::WriteSeedsIfAsked(&WriteSeeds);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static auto* servers =
      new fuzz::RecycledServer<replay::ReplayServer>(&StartReplay);
  const std::shared_ptr<grpc::Channel> channel =
      servers->PlayNext(Driver(), data, size);
  // Still serving whatever it was sent.
  auto stub = v1::ReplayService::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  v1::GetStatsRequest request;
  request.set_job_id("job-000001");
  v1::ReplayStats stats;
  const grpc::Status status = stub->GetStats(&context, request, &stats);
  fuzz::Require(status.ok() ||
                status.error_code() == grpc::StatusCode::NOT_FOUND);
  return 0;
}
