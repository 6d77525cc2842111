// bench/model: throughput of the MMap-MuZero networks (common/model/) on the
// LibTorch device (CUDA when available, else CPU) for two networks:
//   small   the tests' cpu-like sizes (small_network.h: 32x32 occupancy grid,
//           vector of 200, hidden 64, 16 channels x 2 blocks, MLP 128,
//           supports [-50, 50] / [-10, 10]);
//   cpu     the `cpu` preset's network and feature sizes (configs/cpu.json:
//           1 block, MLP 64, supports [-50, 50] / [-50, 50]), what self-play
//           and the learner run with that preset.
// Rows, for each network:
//   initial     representation + prediction, by batch size;
//   recurrent   dynamics + prediction, by batch size;
//   learner     one learner-like step at batch 64: initial inference, 5
//               recurrent unroll steps, policy/value/reward cross-entropy,
//               backward and an Adam step.
//   Learner     training::Learner::Step at the cpu preset's training sizes
//               (batch 64, K 5, n 10) reading a synthetic replay of 200
//               trajectories of 50 steps: sampling, targets, stacking,
//               MuZeroLoss, backward, Adam with weight decay.
// Prints a Markdown table with the core and thread counts (for
// docs/benchmarks.md). Usage: model_bench [torch_threads].
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "bench/synthetic_replay.h"
#include "common/agent/replay_buffer.h"
#include "common/features/config_presets.h"
#include "common/model/compute_threads.h"
#include "common/model/networks.h"
#include "common/model/small_network.h"
#include "common/training/learner.h"
#include "common/training/self_play.h"

namespace mmapzero::model {
namespace {

using training::Learner;

using Clock = std::chrono::steady_clock;

// Seconds per call of `fn` after one warm-up call: the best of 5 windows of
// at least `min_seconds` / 5 and 3 calls each, so that a burst of load
// from other processes on a shared machine spoils one window, not the
// figure.
template <typename Fn>
double SecondsPerCall(double min_seconds, Fn&& fn) {
  fn();
  double best = 0;
  for (int window = 0; window < 5; ++window) {
    int calls = 0;
    const Clock::time_point start = Clock::now();
    double elapsed = 0;
    while (elapsed < min_seconds / 5 || calls < 3) {
      fn();
      ++calls;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    }
    if (window == 0 || elapsed / calls < best) best = elapsed / calls;
  }
  return best;
}

// Synchronises CUDA so that timings include the work (no-op on the CPU).
void Sync(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize();
}

torch::Tensor SoftCrossEntropy(const torch::Tensor& logits,
                               const torch::Tensor& targets) {
  return -(targets * logits.log_softmax(1)).sum(1).mean();
}

// One network to measure: its name, sizes and an instance on `device`.
struct BenchNetwork {
  const char* name;
  NetworkConfig config;
  ObservationShape shape;
  MuZeroNetwork network{nullptr};
};

// "Learner steps / s": Learner::Step at the cpu preset's training sizes.
int LearnerRow(const BenchNetwork& bench, const torch::Device& device) {
  TrainingConfig training = features::CpuPreset().training();
  agent::ReplayBuffer replay(training.replay_size(), training.seed());
  FillSyntheticReplay(bench.shape, 200, 50, &replay);
  absl::StatusOr<std::unique_ptr<Learner>> learner = Learner::Create(
      training, features::CpuPreset().search().discount(), bench.network);
  if (!learner.ok()) {
    std::fprintf(stderr, "%s\n", learner.status().ToString().c_str());
    return 1;
  }
  const double step = SecondsPerCall(3.0, [&] {
    (void)(*learner)->Step(replay.Sample(training.batch_size()));
    Sync(device);
  });
  std::printf(
      "| %s | Learner::Step (K=%d, n=%d) | %d | %.3f | %.1f steps/s | |\n",
      bench.name, training.unroll_steps(), training.td_steps(),
      training.batch_size(), step * 1e3, 1.0 / step);
  return 0;
}

// Initial and recurrent inference by batch size; "vs batch 1" is the
// samples/s ratio to the batch-1 row of the same pass.
void InferenceRows(const BenchNetwork& bench, const torch::Device& device) {
  const auto options = torch::TensorOptions().device(device);
  const ObservationShape& shape = bench.shape;
  MuZeroNetwork network = bench.network;
  double initial_1 = 0;
  double recurrent_1 = 0;
  for (const int batch : {1, 8, 32, 64, 128}) {
    const torch::Tensor occupancy =
        torch::rand({batch, 1, shape.time_bins, shape.byte_bins}, options);
    const torch::Tensor vector =
        torch::rand({batch, shape.vector_size}, options);
    const torch::Tensor hidden =
        torch::rand({batch, bench.config.hidden_size()}, options);
    const torch::Tensor actions =
        torch::randint(0, kNumActions, {batch}, options.dtype(torch::kLong));
    torch::NoGradGuard no_grad;
    const double initial = SecondsPerCall(1.0, [&] {
      network->InitialInference(occupancy, vector);
      Sync(device);
    });
    const double recurrent = SecondsPerCall(1.0, [&] {
      network->RecurrentInference(hidden, actions);
      Sync(device);
    });
    if (batch == 1) {
      initial_1 = initial;
      recurrent_1 = recurrent;
    }
    std::printf("| %s | initial | %d | %.3f | %.0f | %.1fx |\n", bench.name,
                batch, initial * 1e3, batch / initial,
                batch * initial_1 / initial);
    std::printf("| %s | recurrent | %d | %.3f | %.0f | %.1fx |\n", bench.name,
                batch, recurrent * 1e3, batch / recurrent,
                batch * recurrent_1 / recurrent);
  }
}

// A hand-written learner step: batch 64, 5 unroll steps, Adam.
void UnrollRow(const BenchNetwork& bench, const torch::Device& device) {
  constexpr int kBatch = 64;
  constexpr int kUnroll = 5;
  const auto options = torch::TensorOptions().device(device);
  const ObservationShape& shape = bench.shape;
  const NetworkConfig& config = bench.config;
  const torch::Tensor occupancy =
      torch::rand({kBatch, 1, shape.time_bins, shape.byte_bins}, options);
  const torch::Tensor vector =
      torch::rand({kBatch, shape.vector_size}, options);
  const torch::Tensor actions = torch::randint(
      0, kNumActions, {kUnroll, kBatch}, options.dtype(torch::kLong));
  const torch::Tensor policy_target =
      torch::full({kBatch, kNumActions}, 1.0 / kNumActions, options);
  const torch::Tensor value_target = ScalarToSupportTensor(
      torch::rand({kBatch}, options) * 10, config.value_support_size());
  const torch::Tensor reward_target = ScalarToSupportTensor(
      torch::rand({kBatch}, options), config.reward_support_size());
  MuZeroNetwork network = bench.network;
  torch::optim::Adam optimizer(network->parameters(),
                               torch::optim::AdamOptions(2e-4));
  const double learner = SecondsPerCall(2.0, [&] {
    optimizer.zero_grad();
    NetworkOutput out = network->InitialInference(occupancy, vector);
    torch::Tensor loss = SoftCrossEntropy(out.policy_logits, policy_target) +
                         SoftCrossEntropy(out.value_logits, value_target);
    for (int k = 0; k < kUnroll; ++k) {
      out = network->RecurrentInference(out.hidden, actions[k]);
      loss = loss + SoftCrossEntropy(out.policy_logits, policy_target) +
             SoftCrossEntropy(out.value_logits, value_target) +
             SoftCrossEntropy(out.reward_logits, reward_target);
    }
    loss.backward();
    optimizer.step();
    Sync(device);
  });
  std::printf("| %s | learner step (K=%d) | %d | %.3f | %.0f | |\n", bench.name,
              kUnroll, kBatch, learner * 1e3, kBatch / learner);
}

int Run(int threads) {
  if (threads > 0) model::SetComputeThreads(threads);
  torch::manual_seed(1);
  const torch::Device device = DefaultDevice();
  const MuZeroConfig cpu = features::CpuPreset();
  std::vector<BenchNetwork> networks = {
      {"small", SmallNetworkConfig(), kSmallObservationShape},
      {"cpu", cpu.network(), ShapeOf(cpu.features())}};
  std::printf("Model bench: %s, %u cores, %d torch threads\n\n",
              device.str().c_str(), std::thread::hardware_concurrency(),
              torch::get_num_threads());
  for (BenchNetwork& bench : networks) {
    absl::StatusOr<MuZeroNetwork> created =
        CreateNetwork(bench.config, bench.shape, device);
    if (!created.ok()) {
      std::fprintf(stderr, "%s\n", created.status().ToString().c_str());
      return 1;
    }
    bench.network = *created;
    int64_t parameters = 0;
    for (const torch::Tensor& p : bench.network->parameters()) {
      parameters += p.numel();
    }
    std::printf(
        "- %s: %dx%d grid, vector %d, hidden %d, %d channels x %d blocks, "
        "MLP %d, supports %d / %d: %lld parameters\n",
        bench.name, bench.shape.time_bins, bench.shape.byte_bins,
        bench.shape.vector_size, bench.config.hidden_size(),
        bench.config.resnet_channels(), bench.config.resnet_blocks(),
        bench.config.mlp_hidden(), bench.config.value_support_size(),
        bench.config.reward_support_size(), static_cast<long long>(parameters));
  }
  std::printf(
      "\n| network | pass | batch | ms / call | samples / s | vs batch 1 "
      "|\n");
  std::printf("|---|---|---:|---:|---:|---:|\n");
  for (const BenchNetwork& bench : networks) {
    InferenceRows(bench, device);
    UnrollRow(bench, device);
    if (LearnerRow(bench, device) != 0) return 1;
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace
}  // namespace mmapzero::model

int main(int argc, char** argv) {
  return mmapzero::model::Run(argc > 1 ? std::atoi(argv[1]) : 0);
}
