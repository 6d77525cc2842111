// mmapzero-learner: the learner service (learner_worker.h).
//   mmapzero-learner --coordinator HOST:PORT --data-dir DIR
//       [--listen 127.0.0.1:7072] [--advertise HOST:PORT] [--metrics-port 9093]
//       [--config FILE] [--device auto|cpu|cuda] ...
// --config names a file of flags, one per line ("--publish-interval=20",
// "#" comments);
// flags on the command line override it. SIGTERM or SIGINT shuts down
// gracefully: every job checkpoints, heartbeats stop, fetches finish.
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/base/address_file.h"
#include "common/base/status_macros.h"
#include "common/model/compute_threads.h"
#include "common/rpc/metrics_endpoint.h"
#include "common/rpc/service_main.h"
#include "learner/learner_worker.h"

constexpr char kUsage[] =
    "the mmapzero learner: trains each assigned job, serves its "
    "parameters.\n"
    "  mmapzero-learner --coordinator HOST:PORT --data-dir DIR "
    "[--listen HOST:PORT] [--metrics-port N] [--config FILE]";

ABSL_FLAG(std::string, coordinator, "", "coordinator host:port (required)");
ABSL_FLAG(std::string, config, "",
          "file of flags, one per line; command-line flags override it");
ABSL_FLAG(std::string, listen, "127.0.0.1:7072",
          "ParameterService address (and /metrics' host); 0.0.0.0:7072 "
          "for every interface");
ABSL_FLAG(std::string, advertise, "",
          "host:port actors reach this learner at (default: the listen "
          "host, 127.0.0.1 for 0.0.0.0, and the bound port)");
ABSL_FLAG(std::string, data_dir, "",
          "checkpoints go to DIR/learner/<job-id>/ (required)");
ABSL_FLAG(int, metrics_port, 9093, "Prometheus /metrics port; 0: off");
ABSL_FLAG(std::string, name, "", "worker name for humans");
ABSL_FLAG(int, capacity, 1, "jobs trained at once");
ABSL_FLAG(int64_t, publish_interval, 10,
          "learner steps between published parameter snapshots");
ABSL_FLAG(int64_t, checkpoint_interval, 0,
          "learner steps between checkpoints; 0: the job's "
          "training.checkpoint_interval");
ABSL_FLAG(int, prefetch_batches, 4, "batches fetched ahead from the replay");
ABSL_FLAG(int, max_chunk_bytes, 1 << 20,
          "FetchParameters chunk size when the client asks for none");
ABSL_FLAG(int, replay_deadline_ms, 10000, "deadline of each SampleBatch call");
ABSL_FLAG(std::string, device, "auto",
          "auto (CUDA when LibTorch has it, else CPU), cpu or cuda");
ABSL_FLAG(int, torch_threads, 1,
          "LibTorch intra-op threads; 0: LibTorch's own default (one per "
          "core). 1 by default: OpenMP barriers stall when another process "
          "holds a core (docs/agent.md)");
ABSL_FLAG(std::string, address_file, "",
          "write the ParameterService address here once serving (for "
          "`mmapctl local up`)");

namespace mmapzero::learner {
namespace {

absl::Status CheckDeviceName(const std::string& name) {
  if (name == "auto" || name == "cpu" || name == "cuda") {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--device: auto, cpu or cuda, got '", name, "'"));
}

// The device --device names on this machine: --device=cuda refuses to
// start without a CUDA device (a CPU-only LibTorch build or no GPU) rather
// than training on one CPU thread unnoticed; auto falls back to the CPU.
absl::StatusOr<torch::Device> DeviceFromFlag(const std::string& name) {
  RETURN_IF_ERROR(CheckDeviceName(name));
  const bool cuda = torch::cuda::is_available();
  if (name == "auto") return cuda ? torch::kCUDA : torch::kCPU;
  if (name == "cpu") return torch::kCPU;
  if (!cuda) {
    return absl::FailedPreconditionError(
        "--device=cuda: LibTorch sees no CUDA device (a CPU-only LibTorch "
        "build, or no GPU visible to this process); refusing to train on "
        "the CPU instead");
  }
  return torch::kCUDA;
}

absl::StatusOr<LearnerWorkerOptions> OptionsFromFlags() {
  LearnerWorkerOptions o;
  o.coordinator = absl::GetFlag(FLAGS_coordinator);
  o.listen = absl::GetFlag(FLAGS_listen);
  o.advertise = absl::GetFlag(FLAGS_advertise);
  o.data_dir = absl::GetFlag(FLAGS_data_dir);
  const int metrics_port = absl::GetFlag(FLAGS_metrics_port);
  if (metrics_port < 0 || metrics_port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--metrics-port: 0 to 65535, got ", metrics_port));
  }
  // /metrics on the host the gRPC server listens on.
  o.metrics_listen =
      rpc::MetricsListenAddress(ListenHost(o.listen), metrics_port);
  o.name = absl::GetFlag(FLAGS_name);
  o.capacity = absl::GetFlag(FLAGS_capacity);
  if (o.capacity < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--capacity: must be >= 1, got ", o.capacity));
  }
  o.publish_interval = absl::GetFlag(FLAGS_publish_interval);
  o.checkpoint_interval = absl::GetFlag(FLAGS_checkpoint_interval);
  if (o.checkpoint_interval < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--checkpoint-interval: must be >= 0, got ", o.checkpoint_interval));
  }
  o.prefetch_batches = absl::GetFlag(FLAGS_prefetch_batches);
  if (o.prefetch_batches < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--prefetch-batches: must be >= 1, got ", o.prefetch_batches));
  }
  o.max_chunk_bytes = absl::GetFlag(FLAGS_max_chunk_bytes);
  const int deadline_ms = absl::GetFlag(FLAGS_replay_deadline_ms);
  if (deadline_ms < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--replay-deadline-ms: must be >= 1, got ", deadline_ms));
  }
  o.replay_deadline = absl::Milliseconds(deadline_ms);
  RETURN_IF_ERROR(CheckDeviceName(absl::GetFlag(FLAGS_device)));
  return o;
}

absl::Status CheckFlags() {
  ASSIGN_OR_RETURN(const LearnerWorkerOptions options, OptionsFromFlags());
  return CheckLearnerWorkerOptions(options);
}

absl::StatusOr<rpc::StopService> Start() {
  ASSIGN_OR_RETURN(LearnerWorkerOptions options, OptionsFromFlags());
  ASSIGN_OR_RETURN(options.device,
                   DeviceFromFlag(absl::GetFlag(FLAGS_device)));
  const int threads = absl::GetFlag(FLAGS_torch_threads);
  if (threads < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--torch-threads: must be 0 (LibTorch's default) or more, got ",
        threads));
  }
  if (threads > 0) model::SetComputeThreads(threads);
  const std::string listen = options.listen;
  ASSIGN_OR_RETURN(std::unique_ptr<LearnerWorker> worker,
                   LearnerWorker::Start(std::move(options)));
  if (const std::string path = absl::GetFlag(FLAGS_address_file);
      !path.empty()) {
    RETURN_IF_ERROR(WriteAddressFile(path, listen, worker->port()));
  }
  return [worker = std::move(worker)] { worker->Shutdown(); };
}

// Puts the lines of "--config=FILE" / "--config FILE" (flags, one per
// line; blank lines and "#" comments skipped) right after argv[0], so that
// every flag on the command line overrides the file's.
absl::StatusOr<std::vector<std::string>> ExpandConfig(
    const std::vector<std::string>& args) {
  std::vector<std::string> out;
  std::string file;
  for (size_t i = 0; i < args.size(); ++i) {
    if (absl::StartsWith(args[i], "--config=")) {
      file = args[i].substr(9);
    } else if (args[i] == "--config" && i + 1 < args.size()) {
      file = args[++i];
    } else {
      out.push_back(args[i]);
    }
  }
  if (file.empty() || out.empty()) return out;
  std::ifstream in(file);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("--config: cannot read '", file, "'"));
  }
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    const std::string flag(absl::StripAsciiWhitespace(line));
    if (flag.empty() || flag[0] == '#') continue;
    if (!absl::StartsWith(flag, "--")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--config: ", file, ": '", flag, "' is not a --flag=value line"));
    }
    lines.push_back(flag);
  }
  out.insert(out.begin() + 1, lines.begin(), lines.end());
  return out;
}

}  // namespace
}  // namespace mmapzero::learner

int main(int argc, char** argv) {
  absl::StatusOr<std::vector<std::string>> expanded =
      mmapzero::learner::ExpandConfig({argv, argv + argc});
  if (!expanded.ok()) {
    std::cerr << "mmapzero-learner: " << expanded.status().message() << "\n";
    return 1;
  }
  std::vector<char*> args;
  for (std::string& arg : *expanded) args.push_back(arg.data());
  return mmapzero::rpc::RunServiceMain(static_cast<int>(args.size()),
                                       args.data(), "learner", kUsage,
                                       &mmapzero::learner::CheckFlags,
                                       &mmapzero::learner::Start);
}
