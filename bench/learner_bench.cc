// bench/learner: training::Learner training throughput, by preset network and
// device, at the presets' own training sizes (TrainingConfig batch_size,
// unroll_steps K, td_steps n): how many positions per second one learner
// consumes on the CPU and, when LibTorch has CUDA, on the GPU. Written for
// the GPU build of bench/gpu_learner_bench.sh (against a CUDA LibTorch); it
// builds and runs in the normal CPU build too.
//
// Rows, for each network (`cpu`, `paper`: features::CpuPreset/PaperPreset)
// and device:
//   Learner::Step   the whole step on a synthetic replay (uniform sampling,
//                   n-step targets, StackBatch on the host and its copy to
//                   the device, MuZeroLoss, backward, Adam);
//   loss+bwd+Adam   MuZeroLoss, backward and Adam alone on one batch stacked
//                   once on the device: what the device itself costs.
// "host share" = 1 - (loss+bwd+Adam time) / (Learner::Step time): the part of
// a step spent sampling, building targets, stacking and copying.
//
// Before timing it checks the device path: DefaultDevice() is CUDA when
// LibTorch sees a GPU, and after a Learner::Step on a network made with
// CreateNetwork's default device every parameter and gradient lies on that
// device and the parameters changed (exit 1 otherwise).
//
// Usage: learner_bench [--networks=cpu,paper] [--devices=cpu,cuda]
//   [--threads=N] [--seconds=S] [--warmup=N] [--repeats=N] [--batch=N]
//   [--passes=step,train] [--release-every=S]
// Defaults: both networks; cpu, plus cuda when available; LibTorch's
// thread count; 3 s per row as `repeats` (3) windows of at least one call
// after `warmup` (2) calls, the best window's time per call. --batch
// replaces the presets' batch size (to keep a slow CPU row short; the table
// says so). --release-every=S runs with the services' malloc settings
// (common/base/malloc_tuning.h) and gives freed memory back every S s (0:
// never; without the flag, glibc's defaults). Prints Markdown
// (docs/benchmarks.md, "Learner on a GPU").
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "bench/synthetic_replay.h"
#include "common/agent/replay_buffer.h"
#include "common/agent/targets.h"
#include "common/base/malloc_tuning.h"
#include "common/features/config_presets.h"
#include "common/model/compute_threads.h"
#include "common/model/muzero_loss.h"
#include "common/model/networks.h"
#include "common/training/learner.h"
#include "common/training/self_play.h"

namespace mmapzero::model {
namespace {

using training::Learner;
using training::LearnerStats;

using Clock = std::chrono::steady_clock;

struct Options {
  std::vector<std::string> networks = {"cpu", "paper"};
  std::vector<std::string> devices;  // empty: cpu, plus cuda if available
  int threads = 0;
  double seconds = 3;
  int warmup = 2;
  int repeats = 3;
  int batch = 0;  // 0: the preset's
  bool step = true;
  bool train = true;
  // Below 0: glibc's malloc as it comes; 0: the services' settings
  // (KeepFreedMemoryForReuse); above 0: those, and ReleaseFreedMemory
  // every so many seconds as a service does (common/base/malloc_tuning.h).
  double release_every = -1;
};

// Synchronises CUDA so that timings include the queued work.
void Sync(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize();
}

// Seconds per call of `fn`: `warmup` calls, then the best of `repeats`
// windows of at least `seconds / repeats` and one call each.
template <typename Fn>
double SecondsPerCall(const Options& options, const torch::Device& device,
                      Fn&& fn) {
  for (int i = 0; i < options.warmup; ++i) fn();
  Sync(device);
  double best = 0;
  for (int window = 0; window < options.repeats; ++window) {
    int calls = 0;
    const Clock::time_point start = Clock::now();
    double elapsed = 0;
    while (calls == 0 || elapsed < options.seconds / options.repeats) {
      fn();
      Sync(device);
      ++calls;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    }
    if (window == 0 || elapsed / calls < best) best = elapsed / calls;
  }
  return best;
}

// One preset's network and training sizes, with a synthetic replay of its
// observation size: 64 games of 60 steps (a position's targets read at most
// K + n + 1 = 26 steps).
struct Preset {
  std::string name;
  MuZeroConfig config;
  ObservationShape shape;
  std::unique_ptr<agent::ReplayBuffer> replay;
};

// The number of parameters of `network`.
int64_t ParameterCount(const MuZeroNetwork& network) {
  int64_t count = 0;
  for (const torch::Tensor& p : network->parameters()) count += p.numel();
  return count;
}

// Checks the device path: one Learner::Step on a network made on
// DefaultDevice() leaves every parameter and gradient on that device and
// changes the parameters. Prints what it found; false on a failure.
bool CheckDevicePath(const Preset& preset) {
  const torch::Device device = DefaultDevice();
  std::printf(
      "DefaultDevice(): %s (torch::cuda::is_available() %s, %d "
      "CUDA device(s))\n",
      device.str().c_str(), torch::cuda::is_available() ? "true" : "false",
      static_cast<int>(torch::cuda::device_count()));
  absl::StatusOr<MuZeroNetwork> network =
      CreateNetwork(preset.config.network(), preset.shape);
  if (!network.ok()) {
    std::fprintf(stderr, "%s\n", network.status().ToString().c_str());
    return false;
  }
  std::vector<torch::Tensor> before;
  for (const torch::Tensor& p : (*network)->parameters()) {
    before.push_back(p.detach().clone());
  }
  // A small batch: the check is about where the work runs, not its size.
  TrainingConfig training = preset.config.training();
  training.set_batch_size(std::min(training.batch_size(), 16));
  absl::StatusOr<std::unique_ptr<Learner>> learner =
      Learner::Create(training, preset.config.search().discount(), *network);
  if (!learner.ok()) {
    std::fprintf(stderr, "%s\n", learner.status().ToString().c_str());
    return false;
  }
  const absl::StatusOr<LearnerStats> stats =
      (*learner)->Step(preset.replay->Sample(training.batch_size()));
  if (!stats.ok()) {
    std::fprintf(stderr, "%s\n", stats.status().ToString().c_str());
    return false;
  }
  Sync(device);
  int on_device = 0, with_grad = 0, changed = 0, total = 0;
  const std::vector<torch::Tensor> after = (*network)->parameters();
  for (size_t i = 0; i < after.size(); ++i, ++total) {
    const torch::Tensor& p = after[i];
    if (p.device().type() == device.type()) ++on_device;
    if (p.grad().defined() && p.grad().device().type() == device.type()) {
      ++with_grad;
    }
    if (!torch::equal(p.detach(), before[i])) ++changed;
  }
  const bool ok = on_device == total && with_grad == total && changed > 0 &&
                  std::isfinite(stats->total);
  std::printf(
      "Device check (%s network, one Learner::Step of batch %d on %s): "
      "%d/%d parameters and %d/%d gradients on %s, %d/%d parameter tensors "
      "changed, loss %.4f: %s\n\n",
      preset.name.c_str(), training.batch_size(), device.str().c_str(),
      on_device, total, with_grad, total, device.str().c_str(), changed, total,
      stats->total, ok ? "ok" : "FAILED");
  return ok;
}

// A rate with three significant digits below 100 (0.00566, 45.0), whole
// above.
std::string Rate(double rate) {
  char text[32];
  std::snprintf(text, sizeof(text), rate < 100 ? "%#.3g" : "%.0f", rate);
  return text;
}

// Seconds per call of the learner's own update (MuZeroLoss, backward, Adam)
// on one batch sampled, given its targets and stacked on `device` once.
double TrainSeconds(const Options& options, const Preset& preset,
                    const torch::Device& device, Learner* learner) {
  const std::vector<agent::SampledPosition> positions =
      preset.replay->Sample(preset.config.training().batch_size());
  std::vector<const agent::TrajectoryStep*> roots;
  std::vector<agent::PositionTargets> targets;
  for (const agent::SampledPosition& p : positions) {
    roots.push_back(&p.trajectory->steps[p.step]);
    targets.push_back(
        agent::MakeTargets(*p.trajectory, p.step, learner->target_options()));
  }
  const TrainingBatch batch = StackBatch(roots, targets, preset.shape, device);
  torch::optim::Adam& optimizer = learner->optimizer();
  return SecondsPerCall(options, device, [&] {
    optimizer.zero_grad();
    LossParts loss = MuZeroLoss(learner->network(), batch);
    loss.total.backward();
    optimizer.step();
  });
}

// The rows of one preset on one device.
void PresetRows(const Options& options, const Preset& preset,
                const torch::Device& device) {
  const TrainingConfig& training = preset.config.training();
  const int batch = training.batch_size();
  const char* batch_note = options.batch > 0 ? " (--batch)" : "";
  absl::StatusOr<MuZeroNetwork> network =
      CreateNetwork(preset.config.network(), preset.shape, device);
  absl::StatusOr<std::unique_ptr<Learner>> learner =
      network.ok() ? Learner::Create(
                         training, preset.config.search().discount(), *network)
                   : absl::StatusOr<std::unique_ptr<Learner>>(network.status());
  if (!learner.ok()) {
    std::fprintf(stderr, "%s\n", learner.status().ToString().c_str());
    std::exit(1);
  }
  // `step_seconds` > 0: the Learner::Step time, for the host share.
  const auto row = [&](const char* pass, double seconds, double step_seconds) {
    std::string host_share;
    if (step_seconds > 0) {
      host_share = std::to_string(static_cast<int>(
                       std::lround(100 * (1 - seconds / step_seconds)))) +
                   "%";
    }
    std::printf("| %s | %s | %d%s | %d | %d | %s | %.2f | %s | %s | %s |\n",
                preset.name.c_str(), device.str().c_str(), batch, batch_note,
                training.unroll_steps(), training.td_steps(), pass,
                seconds * 1e3, Rate(1 / seconds).c_str(),
                Rate(batch / seconds).c_str(), host_share.c_str());
    std::fflush(stdout);
  };
  double step = 0;
  if (options.step) {
    step = SecondsPerCall(options, device, [&] {
      const absl::StatusOr<LearnerStats> stats =
          (*learner)->Step(preset.replay->Sample(batch));
      if (!stats.ok()) {
        std::fprintf(stderr, "%s\n", stats.status().ToString().c_str());
        std::exit(1);
      }
    });
    row("Learner::Step", step, 0);
  }
  if (options.train) {
    const double train =
        TrainSeconds(options, preset, device, (*learner).get());
    row("loss+bwd+Adam", train, step);
  }
}

// The preset `name` (its batch size replaced by --batch) and its replay.
absl::StatusOr<Preset> MakePreset(const std::string& name,
                                  const Options& options) {
  absl::StatusOr<MuZeroConfig> config = features::PresetByName(name);
  if (!config.ok()) return config.status();
  TrainingConfig* training = config->mutable_training();
  if (options.batch > 0) training->set_batch_size(options.batch);
  Preset preset{name, *config, ShapeOf(config->features()),
                std::make_unique<agent::ReplayBuffer>(training->replay_size(),
                                                      training->seed())};
  FillSyntheticReplay(preset.shape, 64, 60, preset.replay.get());
  return preset;
}

void DescribePreset(const Preset& preset) {
  const NetworkConfig& n = preset.config.network();
  const TrainingConfig& t = preset.config.training();
  const MuZeroNetwork probe(n, preset.shape);
  std::string conv;
  if (n.trunk() == NetworkConfig::CONV) {
    conv = std::to_string(n.resnet_channels()) + " channels x " +
           std::to_string(n.resnet_blocks()) + " blocks, ";
  }
  std::printf(
      "- %s: trunk %s, %dx%d grid, vector %d, hidden %d, %sMLP %d, "
      "supports %d / %d: %lld parameters; training batch %d, K %d, n %d\n",
      preset.name.c_str(), NetworkConfig::Trunk_Name(n.trunk()).c_str(),
      preset.shape.time_bins, preset.shape.byte_bins, preset.shape.vector_size,
      n.hidden_size(), conv.c_str(), n.mlp_hidden(), n.value_support_size(),
      n.reward_support_size(), static_cast<long long>(ParameterCount(probe)),
      t.batch_size(), t.unroll_steps(), t.td_steps());
}

bool ParseOptions(int argc, char** argv, Options* options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    const std::vector<std::string> list =
        absl::StrSplit(value, ',', absl::SkipEmpty());
    if (name == "--networks") {
      options->networks = list;
    } else if (name == "--devices") {
      options->devices = list;
    } else if (name == "--passes") {
      options->step = options->train = false;
      for (const std::string& pass : list) {
        if (pass == "step")
          options->step = true;
        else if (pass == "train")
          options->train = true;
        else
          return false;
      }
    } else if (name == "--threads") {
      options->threads = std::atoi(value.c_str());
    } else if (name == "--seconds") {
      options->seconds = std::atof(value.c_str());
    } else if (name == "--warmup") {
      options->warmup = std::atoi(value.c_str());
    } else if (name == "--repeats") {
      options->repeats = std::max(1, std::atoi(value.c_str()));
    } else if (name == "--batch") {
      options->batch = std::atoi(value.c_str());
    } else if (name == "--release-every") {
      options->release_every = std::atof(value.c_str());
    } else {
      return false;
    }
  }
  return true;
}

int Run(const Options& options) {
  // Before LibTorch starts its threads, as in a service's main.
  if (options.release_every >= 0) KeepFreedMemoryForReuse();
  std::optional<PeriodicMemoryRelease> release;
  if (options.release_every > 0) {
    release.emplace(absl::Seconds(options.release_every));
  }
  if (options.threads > 0) SetComputeThreads(options.threads);
  torch::manual_seed(1);
  std::vector<std::string> devices = options.devices;
  if (devices.empty()) {
    devices = {"cpu"};
    if (torch::cuda::is_available()) devices.push_back("cuda");
  }
  std::printf("Learner bench: %u cores, %d torch threads, LibTorch %s\n",
              std::thread::hardware_concurrency(), torch::get_num_threads(),
              TORCH_VERSION);
  if (options.release_every < 0) {
    std::printf("malloc: glibc's defaults\n");
  } else if (options.release_every == 0) {
    std::printf("malloc: the services' settings, freed memory kept\n");
  } else {
    std::printf(
        "malloc: the services' settings, freed memory released every %g s\n",
        options.release_every);
  }
  std::vector<Preset> presets;
  for (const std::string& name : options.networks) {
    absl::StatusOr<Preset> preset = MakePreset(name, options);
    if (!preset.ok()) {
      std::fprintf(stderr, "%s\n", preset.status().ToString().c_str());
      return 2;
    }
    DescribePreset(*preset);
    presets.push_back(std::move(*preset));
  }
  std::printf("\n");
  if (!presets.empty() && !CheckDevicePath(presets[0])) return 1;
  std::printf(
      "| network | device | batch | K | n | pass | ms / step | steps / s | "
      "samples / s | host share |\n");
  std::printf("|---|---|---:|---:|---:|---|---:|---:|---:|---:|\n");
  for (const Preset& preset : presets) {
    for (const std::string& name : devices) {
      const torch::Device device(name);
      if (device.is_cuda() && !torch::cuda::is_available()) {
        std::fprintf(stderr, "no CUDA device: skipping %s\n", name.c_str());
        continue;
      }
      PresetRows(options, preset, device);
    }
  }
  return 0;
}

}  // namespace
}  // namespace mmapzero::model

int main(int argc, char** argv) {
  mmapzero::model::Options options;
  if (!mmapzero::model::ParseOptions(argc, argv, &options)) {
    std::fprintf(stderr,
                 "usage: learner_bench [--networks=cpu,paper] "
                 "[--devices=cpu,cuda] [--threads=N] [--seconds=S] "
                 "[--warmup=N] [--repeats=N] [--batch=N] "
                 "[--passes=step,train] [--release-every=S]\n");
    return 2;
  }
  return mmapzero::model::Run(options);
}
