// Fuzzes the coordinator's remote surface: every method of JobService,
// WorkerService and NetworkRegistry, fed fuzzed request bytes through a
// real CoordinatorServer (its handlers, access checks, SQLite store and
// seed solves) over an in-process channel (rpc_fuzz_driver.h). Whatever
// arrives, the server answers and goes on serving: after each input it
// must still list its jobs. With MMAPZERO_FUZZ_SEED_DIR set it writes
// valid call sequences for every method there (the seed corpus, so that
// inputs get past the checks: a job submitted, a worker registered and
// reporting, networks imported and exported) and exits.
//
// The server keeps its state for MMAPZERO_FUZZ_INPUTS_PER_SERVER inputs
// (default 64), then starts again on a fresh data directory; set it to 1
// to replay a crash input on a fresh coordinator.
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/game/program.h"
#include "common/solvers/solver.h"
#include "common/workload/proto_io.h"
#include "coordinator/coordinator_server.h"
#include "fuzz/fuzz_util.h"
#include "fuzz/rpc_fuzz_driver.h"
#include "proto/job.grpc.pb.h"
#include "proto/network.grpc.pb.h"
#include "proto/worker.grpc.pb.h"

namespace {

using namespace mmapzero;

const fuzz::RpcFuzzDriver& Driver() {
  static const fuzz::RpcFuzzDriver* driver = new fuzz::RpcFuzzDriver(
      {"mmapzero.v1.JobService", "mmapzero.v1.WorkerService",
       "mmapzero.v1.NetworkRegistry"});
  return *driver;
}

Workload SmallWorkload() {
  absl::StatusOr<Workload> workload =
      ReadWorkload(std::string(MMAPZERO_SOURCE_DIR) + "/examples/small.json");
  fuzz::Require(workload.ok());
  return *std::move(workload);
}

template <typename Message>
std::string Bytes(const Message& message) {
  return message.SerializeAsString();
}

bool WriteSeeds(const std::string& dir) {
  const fuzz::RpcFuzzDriver& driver = Driver();
  const Workload workload = SmallWorkload();
  v1::SubmitJobRequest submit;
  submit.set_name("fuzz");
  *submit.mutable_workload() = workload;
  submit.set_preset("cpu");
  submit.mutable_budget()->set_wall_seconds(60);
  v1::GetJobRequest get;
  get.set_job_id("job-000001");
  v1::WatchJobRequest watch;
  watch.set_job_id("job-000001");
  v1::GetBestSolutionRequest best;
  best.set_job_id("job-000001");
  v1::CancelJobRequest cancel;
  cancel.set_job_id("job-000001");
  v1::DeleteJobRequest remove;
  remove.set_job_id("job-000001");
  v1::ExtendJobRequest extend;
  extend.set_job_id("job-000001");
  extend.set_wall_seconds(60);
  v1::ResumeJobRequest resume;
  resume.set_job_id("job-000001");
  resume.set_wall_seconds(60);
  v1::GetJobDetailsRequest details;
  details.set_job_id("job-000001");

  v1::RegisterRequest actor;
  actor.set_role(v1::WORKER_ROLE_ACTOR);
  actor.set_capacity(1);
  actor.set_name("fuzz-actor");
  v1::RegisterRequest learner = actor;
  learner.set_role(v1::WORKER_ROLE_LEARNER);
  learner.set_address("127.0.0.1:1");
  v1::HeartbeatRequest heartbeat;
  heartbeat.set_worker_id("worker-000001");
  v1::JobCounters& counters = *heartbeat.add_jobs();
  counters.set_job_id("job-000001");
  counters.set_games(3);
  counters.set_moves(30);
  counters.set_learner_step(5);
  (*counters.mutable_losses())["value"] = 0.5;
  v1::FetchWorkloadRequest fetch;
  fetch.set_worker_id("worker-000001");
  fetch.set_job_id("job-000001");
  fetch.set_max_chunk_bytes(64);
  v1::ReportSolutionRequest report;
  report.set_job_id("job-000001");
  report.set_worker_id("worker-000001");
  {
    auto program = game::Program::Create(workload);
    fuzz::Require(program.ok());
    auto solver = solvers::MakeSolver("heuristic", {});
    fuzz::Require(solver.ok());
    solvers::SolverBudget budget;
    budget.wall_time = absl::Seconds(5);
    absl::StatusOr<Solution> solution = (*solver)->Solve(*program, budget);
    fuzz::Require(solution.ok());
    *report.mutable_solution() = *std::move(solution);
  }
  v1::FetchJobNetworkRequest fetch_network;
  fetch_network.set_worker_id("worker-000001");
  fetch_network.set_job_id("job-000001");
  v1::ReportJobNetworkRequest network_part;
  network_part.set_worker_id("worker-000001");
  network_part.set_job_id("job-000001");
  network_part.set_learner_step(5);
  network_part.mutable_chunk()->set_total_bytes(8);
  network_part.mutable_chunk()->set_data("MZNET\0\0\0");

  v1::ImportNetworkRequest import_head;
  import_head.mutable_info()->set_name("fuzz-net");
  import_head.mutable_info()->set_description("seed");
  import_head.mutable_chunk()->set_total_bytes(8);
  import_head.mutable_chunk()->set_data("MZNE");
  v1::ImportNetworkRequest import_tail;
  import_tail.mutable_chunk()->set_offset(4);
  import_tail.mutable_chunk()->set_total_bytes(8);
  import_tail.mutable_chunk()->set_data("T\0\0\0");
  v1::ImportNetworkRequest from_job;
  from_job.mutable_info()->set_name("fuzz-job-net");
  from_job.set_from_job("job-000001");
  v1::GetNetworkRequest get_network;
  get_network.set_name("fuzz-net");
  v1::ExportNetworkRequest export_network;
  export_network.set_name("fuzz-net");
  export_network.set_max_chunk_bytes(4);
  v1::DeleteNetworkRequest delete_network;
  delete_network.set_name("fuzz-net");

  const std::string none;  // an empty request: every field unset
  return fuzz::WriteSeed(
             dir, "client.seed",
             driver.Encode({{"JobService.SubmitJob", {Bytes(submit)}},
                            {"JobService.ListJobs", {none}},
                            {"JobService.GetJob", {Bytes(get)}},
                            {"JobService.WatchJob", {Bytes(watch)}},
                            {"JobService.GetBestSolution", {Bytes(best)}},
                            {"JobService.CancelJob", {Bytes(cancel)}},
                            {"JobService.DeleteJob", {Bytes(remove)}}})) &&
         fuzz::WriteSeed(
             dir, "lifecycle.seed",
             driver.Encode({{"JobService.SubmitJob", {Bytes(submit)}},
                            {"JobService.ExtendJob", {Bytes(extend)}},
                            {"JobService.CancelJob", {Bytes(cancel)}},
                            {"JobService.ResumeJob", {Bytes(resume)}},
                            {"JobService.ExtendJob", {Bytes(extend)}},
                            {"JobService.CancelJob", {Bytes(cancel)}},
                            {"JobService.GetJobDetails", {Bytes(details)}},
                            {"JobService.DeleteJob", {Bytes(remove)}}})) &&
         fuzz::WriteSeed(
             dir, "actor.seed",
             driver.Encode({{"JobService.SubmitJob", {Bytes(submit)}},
                            {"WorkerService.Register", {Bytes(actor)}},
                            {"WorkerService.Heartbeat", {Bytes(heartbeat)}},
                            {"WorkerService.FetchWorkload", {Bytes(fetch)}},
                            {"WorkerService.ReportSolution", {Bytes(report)}},
                            {"JobService.GetBestSolution", {Bytes(best)}}})) &&
         fuzz::WriteSeed(
             dir, "learner.seed",
             driver.Encode(
                 {{"JobService.SubmitJob", {Bytes(submit)}},
                  {"WorkerService.Register", {Bytes(learner)}},
                  {"WorkerService.Heartbeat", {Bytes(heartbeat)}},
                  {"WorkerService.ReportJobNetwork", {Bytes(network_part)}},
                  {"WorkerService.FetchJobNetwork", {Bytes(fetch_network)}},
                  {"NetworkRegistry.ImportNetwork", {Bytes(from_job)}}})) &&
         fuzz::WriteSeed(
             dir, "networks.seed",
             driver.Encode(
                 {{"NetworkRegistry.ImportNetwork",
                   {Bytes(import_head), Bytes(import_tail)}},
                  {"NetworkRegistry.ListNetworks", {none}},
                  {"NetworkRegistry.GetNetwork", {Bytes(get_network)}},
                  {"NetworkRegistry.ExportNetwork", {Bytes(export_network)}},
                  {"NetworkRegistry.DeleteNetwork", {Bytes(delete_network)}}}));
}

std::unique_ptr<coordinator::CoordinatorServer> StartCoordinator() {
  const std::string dir =
      "/tmp/mmapzero_coordinator_rpc_fuzzer." + std::to_string(getpid());
  std::filesystem::remove_all(dir);  // a fresh database each time
  coordinator::CoordinatorServerOptions options;
  options.listen = "127.0.0.1:0";
  options.coordinator.data_dir = dir;
  options.coordinator.heuristic_budget = absl::Seconds(1);
  absl::StatusOr<std::unique_ptr<coordinator::CoordinatorServer>> server =
      coordinator::CoordinatorServer::Start(options);
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
      new fuzz::RecycledServer<coordinator::CoordinatorServer>(
          &StartCoordinator);
  const std::shared_ptr<grpc::Channel> channel =
      servers->PlayNext(Driver(), data, size);
  // Still serving whatever it was sent.
  auto jobs = v1::JobService::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
  v1::ListJobsResponse listed;
  fuzz::Require(jobs->ListJobs(&context, v1::ListJobsRequest(), &listed).ok());
  return 0;
}
