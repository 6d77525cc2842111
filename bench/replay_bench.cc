// bench/replay: throughput and latency of the replay server on loopback
// with realistic trajectories, against a trivial gRPC service of the same
// messages (bench/replay_echo.proto) on the same machine, so the table's
// own cost (checking, converting, storing, sampling, building windows)
// reads as the difference.
//
// Trajectories: 3000 steps of the `cpu` preset's observation (32x32
// occupancy bytes, 150 vector floats), one per InsertTrajectories call
// (about 5 MB). Batches: the `cpu` preset's 64 windows of K = 5, n = 10
// (16 steps, the first with its observation) and the paper's 512. One
// client thread, calls back to back; latency is the client's wall time per
// call. Then the table written as a checkpoint and read back, with the
// CRC32C of its bytes alone, and a restart with eight ended jobs' tables
// on disk. Prints Markdown tables for docs/benchmarks.md.
//   replay_bench [inserts=40] [sample_calls=300]
#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "bench/replay_echo.grpc.pb.h"
#include "common/base/crc32c.h"
#include "common/base/read_file.h"
#include "common/rpc/grpc_server.h"
#include "proto/replay.grpc.pb.h"
#include "replay/replay_server.h"
#include "replay/table_checkpoint.h"

namespace mmapzero::bench {
namespace {

constexpr int kSteps = 3000;
constexpr int kOccupancy = 32 * 32;
constexpr int kVector = 150;
constexpr int kDistinct = 8;  // different trajectories, inserted in turn

v1::Trajectory RandomTrajectory(std::mt19937_64& rng) {
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  v1::Trajectory t;
  t.set_parameter_version(1);
  for (int i = 0; i < kSteps; ++i) {
    v1::TrajectoryStep* step = t.add_steps();
    std::string occupancy(kOccupancy, '\0');
    for (char& c : occupancy) c = static_cast<char>(rng() & 0xff);
    step->set_occupancy(std::move(occupancy));
    for (int j = 0; j < kVector; ++j) step->add_vector(unit(rng));
    step->set_buffer(i);
    step->set_action(static_cast<Action>(rng() % 3));
    step->set_legal_mask(7);
    step->set_reward(-unit(rng));
    step->set_root_value(-unit(rng) * 10);
    const float a = unit(rng), b = unit(rng) * (1 - a);
    for (float p : {a, b, 1 - a - b}) step->add_policy(p);
  }
  return t;
}

class EchoService final : public ReplayEcho::Service {
 public:
  explicit EchoService(v1::SampleBatchResponse batch)
      : batch_(std::move(batch)) {}
  grpc::Status Insert(grpc::ServerContext*,
                      const v1::InsertTrajectoriesRequest* request,
                      v1::InsertTrajectoriesResponse* response) override {
    for (int i = 0; i < request->trajectories_size(); ++i) {
      response->add_trajectory_ids(i + 1);
    }
    return grpc::Status::OK;
  }
  grpc::Status Sample(grpc::ServerContext*, const v1::SampleBatchRequest*,
                      v1::SampleBatchResponse* response) override {
    *response = batch_;
    return grpc::Status::OK;
  }

 private:
  const v1::SampleBatchResponse batch_;
};

struct Result {
  std::string service, call;
  int calls = 0;
  double seconds = 0;
  double items_per_call = 0;  // trajectories or windows
  double steps_per_call = 0;
  double bytes_per_call = 0;
  std::vector<double> latency_ms;
};

template <typename Call>
Result Measure(int calls, Call call) {
  Result r;
  r.calls = calls;
  for (int i = 0; i < 3; ++i) call(i);  // warm up
  const absl::Time start = absl::Now();
  for (int i = 0; i < calls; ++i) {
    const absl::Time t0 = absl::Now();
    call(i);
    r.latency_ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - t0));
  }
  r.seconds = absl::ToDoubleSeconds(absl::Now() - start);
  std::sort(r.latency_ms.begin(), r.latency_ms.end());
  return r;
}

double Quantile(const std::vector<double>& sorted, double q) {
  return sorted[std::min(sorted.size() - 1,
                         static_cast<size_t>(q * sorted.size()))];
}

void Check(const grpc::Status& status, const char* what) {
  if (status.ok()) return;
  std::cerr << what << ": " << status.error_message() << "\n";
  std::exit(1);
}

std::unique_ptr<grpc::ClientContext> Deadlined() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() +
                        std::chrono::seconds(60));
  return context;
}

std::shared_ptr<grpc::Channel> Channel(int port) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  args.SetMaxSendMessageSize(64 << 20);
  return grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", port),
                                   grpc::InsecureChannelCredentials(), args);
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return absl::StrCat(one, " ", five, " ", fifteen);
}

// The job's table written as a checkpoint and read back
// (replay/table_checkpoint.h, in the server's temporary data folder),
// beside the CRC32C of the file's bytes alone: the checksum's share.
void PrintCheckpoint(replay::ReplayTables& tables, const std::string& job_id) {
  const absl::Time save_start = absl::Now();
  if (const absl::Status saved = tables.CheckpointAll(); !saved.ok()) {
    std::cerr << saved << "\n";
    return;
  }
  const double save = absl::ToDoubleSeconds(absl::Now() - save_start);
  const std::string path = tables.TablePath(job_id);
  const absl::Time load_start = absl::Now();
  const absl::StatusOr<replay::TableSnapshot> loaded = replay::LoadTable(path);
  const double load = absl::ToDoubleSeconds(absl::Now() - load_start);
  const absl::StatusOr<std::string> bytes = ReadWholeFile(path);
  if (!loaded.ok() || !bytes.ok()) {
    std::cerr << (loaded.ok() ? bytes.status() : loaded.status()) << "\n";
    return;
  }
  const absl::Time crc_start = absl::Now();
  const uint32_t crc = Crc32c(*bytes);
  const double checksum = absl::ToDoubleSeconds(absl::Now() - crc_start);
  const double mb = bytes->size() / 1e6;
  std::cout << "\n| table checkpoint | trajectories | MB | save s | load s | "
               "CRC32C alone s | CRC32C / save |\n"
            << "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n"
            << absl::StrFormat("| %s (crc %08x) | %d | %.1f | %.3f | %.3f | "
                               "%.4f | %.3f |\n",
                               job_id, crc, loaded->entries.size(), mb, save,
                               load, checksum, checksum / save);
}

// A replay server's start with `copies` tables of ended jobs on its disk
// (copies of `job_id`'s checkpoint): finding them (ReplayTables::LoadAll,
// what a start does) against loading every one of them as well (what a
// start did before tables were loaded only when needed).
void PrintRestart(const replay::ReplayTables& tables,
                  const replay::ReplayTablesOptions& options,
                  const std::string& job_id, int copies) {
  const std::filesystem::path table = tables.TablePath(job_id);
  std::vector<std::string> jobs;
  for (int i = 0; i < copies; ++i) {
    const std::string copy = absl::StrFormat("job-ended-%02d", i);
    const std::filesystem::path to = tables.TablePath(copy);
    std::error_code error;
    std::filesystem::create_directories(to.parent_path(), error);
    std::filesystem::copy_file(
        table, to, std::filesystem::copy_options::overwrite_existing, error);
    if (error) {
      std::cerr << "cannot copy " << table << ": " << error.message() << "\n";
      return;
    }
    jobs.push_back(copy);
  }
  replay::ReplayTables restarted(options);
  const absl::Time start = absl::Now();
  const absl::StatusOr<int> found = restarted.LoadAll();
  const double find = absl::ToDoubleSeconds(absl::Now() - start);
  for (const std::string& job : jobs) {
    v1::GetStatsRequest request;
    request.set_job_id(job);
    const absl::Status loaded = restarted.GetStats(request).status();
    if (!loaded.ok()) {
      std::cerr << "loading " << job << ": " << loaded << "\n";
      return;
    }
  }
  const double all = absl::ToDoubleSeconds(absl::Now() - start);
  std::cout << "\n| start with ended jobs' tables on disk | tables | "
               "found (s) | found and every table loaded (s) | ratio |\n"
            << "| --- | ---: | ---: | ---: | ---: |\n"
            << absl::StrFormat(
                   "| %d copies of %s | %d | %.4f | %.3f | %.0fx |\n", copies,
                   job_id, found.ok() ? *found : -1, find, all,
                   all / std::max(find, 1e-6));
  for (const std::string& job : jobs) {
    std::filesystem::remove_all(table.parent_path().parent_path() / job);
  }
}

int Run(int inserts, int sample_calls) {
  std::mt19937_64 rng(1);
  std::vector<v1::InsertTrajectoriesRequest> requests(kDistinct);
  for (v1::InsertTrajectoriesRequest& r : requests) {
    r.set_job_id("job-000001");
    *r.add_trajectories() = RandomTrajectory(rng);
  }
  const double insert_bytes = requests[0].ByteSizeLong();

  char data_dir[] = "/tmp/replay_bench_XXXXXX";
  if (mkdtemp(data_dir) == nullptr) {
    std::cerr << "no temporary folder\n";
    return 1;
  }
  replay::ReplayServerOptions options;
  options.listen = "127.0.0.1:0";
  options.tables.data_dir = data_dir;
  options.checkpoint_interval = absl::Hours(1);  // only PrintCheckpoint's
  options.tables.default_capacity = 2000;
  options.tables.max_rate_wait = absl::ZeroDuration();
  options.tables.table.limiter = {.min_positions = 0, .samples_per_insert = 0};
  auto server = replay::ReplayServer::Start(options);
  if (!server.ok()) {
    std::cerr << server.status() << "\n";
    return 1;
  }
  auto replay = v1::ReplayService::NewStub(Channel((*server)->port()));

  std::vector<Result> results;
  Result r = Measure(inserts, [&](int i) {
    v1::InsertTrajectoriesResponse response;
    Check(replay->InsertTrajectories(Deadlined().get(), requests[i % kDistinct],
                                     &response),
          "InsertTrajectories");
  });
  r.service = "replay";
  r.call = "InsertTrajectories (1 x 3000 steps)";
  r.items_per_call = 1;
  r.steps_per_call = kSteps;
  r.bytes_per_call = insert_bytes;
  results.push_back(r);

  std::vector<std::pair<int, v1::SampleBatchResponse>> batches;
  for (const int batch : {64, 512}) {
    v1::SampleBatchRequest request;
    request.set_job_id("job-000001");
    request.set_batch_size(batch);
    request.set_unroll_steps(5);
    request.set_td_steps(10);
    request.set_discount(0.997);
    v1::SampleBatchResponse last;
    const int calls = batch == 64 ? sample_calls : sample_calls / 4;
    r = Measure(calls, [&](int) {
      Check(replay->SampleBatch(Deadlined().get(), request, &last),
            "SampleBatch");
    });
    r.service = "replay";
    r.call = absl::StrCat("SampleBatch (", batch, " x 16 steps)");
    r.items_per_call = batch;
    r.steps_per_call = batch * 16;
    r.bytes_per_call = last.ByteSizeLong();
    results.push_back(r);
    batches.push_back({batch, last});
  }

  // The baseline: the same messages through a service that does nothing.
  std::vector<std::unique_ptr<EchoService>> echoes;
  for (const auto& [batch, response] : batches) {
    echoes.push_back(std::make_unique<EchoService>(response));
    auto echo_server = rpc::StartGrpcServer({.listen = "127.0.0.1:0",
                                             .services = {echoes.back().get()},
                                             .service_names = {}});
    if (!echo_server.ok()) {
      std::cerr << echo_server.status() << "\n";
      return 1;
    }
    auto echo = ReplayEcho::NewStub(Channel(echo_server->port));
    if (batch == 64) {
      r = Measure(inserts, [&](int i) {
        v1::InsertTrajectoriesResponse ack;
        Check(echo->Insert(Deadlined().get(), requests[i % kDistinct], &ack),
              "echo Insert");
      });
      r.service = "echo";
      r.call = "InsertTrajectories (1 x 3000 steps)";
      r.items_per_call = 1;
      r.steps_per_call = kSteps;
      r.bytes_per_call = insert_bytes;
      results.push_back(r);
    }
    v1::SampleBatchRequest request;
    const int calls = batch == 64 ? sample_calls : sample_calls / 4;
    r = Measure(calls, [&](int) {
      v1::SampleBatchResponse out;
      Check(echo->Sample(Deadlined().get(), request, &out), "echo Sample");
    });
    r.service = "echo";
    r.call = absl::StrCat("SampleBatch (", batch, " x 16 steps)");
    r.items_per_call = batch;
    r.steps_per_call = batch * 16;
    r.bytes_per_call = response.ByteSizeLong();
    results.push_back(r);
    echo_server->server->Shutdown();
  }

  std::sort(results.begin(), results.end(),
            [](const Result& a, const Result& b) {
              return a.call != b.call ? a.call < b.call : a.service > b.service;
            });
  std::cout << "cores: " << std::thread::hardware_concurrency()
            << ", load average at the end: " << LoadAverage() << "\n\n";
  std::cout << "| call | service | calls | calls/s | trajectories or "
               "windows/s | steps/s | MB/s | p50 ms | p99 ms |\n"
            << "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | "
               "---: |\n";
  for (const Result& x : results) {
    const double per_second = x.calls / x.seconds;
    std::cout << absl::StrFormat(
        "| %s | %s | %d | %.1f | %.0f | %.0f | %.1f | %.2f | %.2f |\n", x.call,
        x.service, x.calls, per_second, per_second * x.items_per_call,
        per_second * x.steps_per_call, per_second * x.bytes_per_call / 1e6,
        Quantile(x.latency_ms, 0.5), Quantile(x.latency_ms, 0.99));
  }
  PrintCheckpoint((*server)->tables(), "job-000001");
  PrintRestart((*server)->tables(), options.tables, "job-000001",
               /*copies=*/8);
  (*server)->Shutdown();
  std::filesystem::remove_all(data_dir);
  return 0;
}

}  // namespace
}  // namespace mmapzero::bench

int main(int argc, char** argv) {
  const int inserts = argc > 1 ? std::atoi(argv[1]) : 40;
  const int sample_calls = argc > 2 ? std::atoi(argv[2]) : 300;
  if (inserts < 1 || sample_calls < 4) {
    std::cerr << "usage: replay_bench [inserts>=1] [sample_calls>=4]\n";
    return 2;
  }
  return mmapzero::bench::Run(inserts, sample_calls);
}
