// bench/parameter: the time an actor or reanalyser takes to get a new
// parameter snapshot from the learner, by network size. A real
// ParameterServiceImpl (learner/parameter_service.h) on loopback holds one
// snapshot (SerializeNetworkParameters of a randomly initialised network)
// and the real ParameterClient (common/rpc/parameter_client.h) fetches it
// whole (default 1 MiB chunks, sizes and CRC32C checked). Networks:
//   cpu     the `cpu` preset (configs/cpu.json), what the local cluster runs;
//   mid     the `paper` preset's features with a network in between
//           (hidden 256, 32 channels x 3 blocks, MLP 256, supports 100);
//   paper   the `paper` preset (hidden 512, 64 channels x 6 blocks, MLP 512).
// Rows, each the median of `repeats` calls after one warm-up:
//   fetch             ParameterClient::Fetch over loopback gRPC;
//   fetch + load      the same, then LoadNetworkParameters into a network
//                     (what a worker does for each new version);
//   in-process        SerializeNetworkParameters + LoadNetworkParameters of
//                     the same network without any transport: the baseline.
// Prints a Markdown table (for docs/benchmarks.md) with the core count.
// Usage: parameter_bench [repeats] (default 50).
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/features/config_presets.h"
#include "common/model/compute_threads.h"
#include "common/model/network_checkpoint.h"
#include "common/model/networks.h"
#include "common/rpc/grpc_server.h"
#include "common/rpc/parameter_client.h"
#include "common/training/self_play.h"
#include "learner/parameter_service.h"

namespace mmapzero {
namespace {

using Clock = std::chrono::steady_clock;
constexpr char kJob[] = "job-000001";

struct BenchNetwork {
  std::string name;
  std::string preset;
  std::vector<std::string> overrides;
};

// Median seconds of `repeats` calls of `fn` after one warm-up call.
template <typename Fn>
double MedianSeconds(int repeats, Fn&& fn) {
  fn();
  std::vector<double> seconds;
  for (int i = 0; i < repeats; ++i) {
    const Clock::time_point start = Clock::now();
    fn();
    seconds.push_back(
        std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

void Check(const absl::Status& status) {
  if (status.ok()) return;
  std::fprintf(stderr, "parameter_bench: %s\n", status.ToString().c_str());
  std::exit(1);
}

int64_t ParameterCount(const model::MuZeroNetwork& network) {
  int64_t count = 0;
  for (const torch::Tensor& p : network->parameters()) count += p.numel();
  return count;
}

void PrintRow(const std::string& network, const std::string& call, size_t bytes,
              int chunks, double seconds, double baseline) {
  std::printf("| %s | %s | %zu | %d | %.2f | %.0f | %.2fx |\n", network.c_str(),
              call.c_str(), bytes, chunks, seconds * 1e3, bytes / seconds / 1e6,
              seconds / baseline);
}

void Run(const BenchNetwork& spec, int repeats, worker::ParameterStore& store,
         rpc::ParameterClient& client) {
  absl::StatusOr<MuZeroConfig> config =
      features::LoadMuZeroConfig(spec.preset, spec.overrides);
  Check(config.status());
  const model::ObservationShape shape = model::ShapeOf(config->features());
  torch::manual_seed(1);
  absl::StatusOr<model::MuZeroNetwork> network =
      model::CreateNetwork(config->network(), shape, torch::kCPU);
  Check(network.status());
  absl::StatusOr<model::MuZeroNetwork> receiver =
      model::CreateNetwork(config->network(), shape, torch::kCPU);
  Check(receiver.status());
  absl::StatusOr<std::string> bytes =
      model::SerializeNetworkParameters(*network);
  Check(bytes.status());
  const size_t size = bytes->size();
  store.Publish(kJob, 1, *bytes, model::kNetworkParametersFormat);
  {  // the fetched bytes are the published ones
    absl::StatusOr<rpc::ParameterSnapshot> fetched = client.Fetch(kJob);
    Check(fetched.status());
    if (fetched->bytes != *bytes) Check(absl::DataLossError("bytes differ"));
  }
  const int chunks = static_cast<int>((size + (1 << 20) - 1) >> 20);

  const double baseline = MedianSeconds(repeats, [&] {
    absl::StatusOr<std::string> b = model::SerializeNetworkParameters(*network);
    Check(b.status());
    Check(model::LoadNetworkParameters(*b, *receiver));
  });
  const double fetch =
      MedianSeconds(repeats, [&] { Check(client.Fetch(kJob).status()); });
  const double fetch_load = MedianSeconds(repeats, [&] {
    absl::StatusOr<rpc::ParameterSnapshot> s = client.Fetch(kJob);
    Check(s.status());
    Check(model::LoadNetworkParameters(s->bytes, *receiver));
  });
  const std::string name =
      absl::StrCat(spec.name, " (", ParameterCount(*network), " parameters)");
  PrintRow(name, "fetch", size, chunks, fetch, baseline);
  PrintRow(name, "fetch + load", size, chunks, fetch_load, baseline);
  PrintRow(name, "in-process serialize + load (baseline)", size, 0, baseline,
           baseline);
  std::fflush(stdout);
}

int Main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 50;
  model::SetComputeThreads(1);
  worker::ParameterStore store;
  learner::ParameterServiceImpl service(&store);
  absl::StatusOr<rpc::StartedServer> started =
      rpc::StartGrpcServer({.services = {&service},
                            .service_names = {"mmapzero.v1.ParameterService"}});
  Check(started.status());
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(64 << 20);
  rpc::ParameterClient client(
      grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", started->port),
                                grpc::InsecureChannelCredentials(), arguments));

  std::printf(
      "ParameterService on loopback, %u cores, 1 torch thread, median of %d "
      "calls; ratio = time / in-process serialize + load\n\n",
      std::thread::hardware_concurrency(), repeats);
  std::printf(
      "| network | call | bytes | chunks | ms | MB/s | vs in-process |\n"
      "| --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
  const std::vector<BenchNetwork> networks = {
      {"cpu", "cpu", {}},
      {"mid",
       "paper",
       {"network.hidden_size=256", "network.resnet_channels=32",
        "network.resnet_blocks=3", "network.mlp_hidden=256",
        "network.value_support_size=100", "network.reward_support_size=100"}},
      {"paper", "paper", {}},
  };
  for (const BenchNetwork& spec : networks) {
    Run(spec, repeats, store, client);
  }
  started->server->Shutdown();
  return 0;
}

}  // namespace
}  // namespace mmapzero

int main(int argc, char** argv) { return mmapzero::Main(argc, argv); }
