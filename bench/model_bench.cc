// bench/model: throughput of the MMap-MuZero networks (common/model/) on the
// LibTorch device (CUDA when available, else CPU) at the cpu-like sizes
// (32x32 occupancy grid, vector of 200, hidden 64, 16 channels x 2 blocks,
// MLP 128, supports [-50, 50] / [-10, 10]):
//   initial     representation + prediction, by batch size;
//   recurrent   dynamics + prediction, by batch size;
//   learner     one learner-like step at batch 64: initial inference, 5
//               recurrent unroll steps, policy/value/reward cross-entropy,
//               backward and an Adam step.
//   Learner     model::Learner::Step at the cpu preset's training sizes
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

#include "common/agent/replay_buffer.h"
#include "common/features/config_presets.h"
#include "common/model/small_network.h"
#include "common/model/learner.h"
#include "common/model/networks.h"

namespace mmapzero::model {
namespace {

using Clock = std::chrono::steady_clock;

// Seconds per call of `fn`, after one warm-up call, over at least
// `min_seconds`.
template <typename Fn>
double SecondsPerCall(double min_seconds, Fn&& fn) {
  fn();
  int calls = 0;
  const Clock::time_point start = Clock::now();
  double elapsed = 0;
  while (elapsed < min_seconds || calls < 3) {
    fn();
    ++calls;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  }
  return elapsed / calls;
}

// Synchronises CUDA so that timings include the work (no-op on the CPU).
void Sync(const torch::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize();
}

torch::Tensor SoftCrossEntropy(const torch::Tensor& logits,
                               const torch::Tensor& targets) {
  return -(targets * logits.log_softmax(1)).sum(1).mean();
}

// A replay of `trajectories` random games of `length` steps.
void FillSyntheticReplay(int trajectories, int length,
                         agent::ReplayBuffer* replay) {
  std::mt19937_64 rng(1);
  const int cells = kSmallObservationShape.time_bins * kSmallObservationShape.byte_bins;
  for (int g = 0; g < trajectories; ++g) {
    agent::Trajectory t;
    for (int i = 0; i < length; ++i) {
      agent::TrajectoryStep s;
      s.observation.occupancy.resize(cells);
      for (uint8_t& c : s.observation.occupancy) c = rng() & 0xff;
      s.observation.vector.resize(kSmallObservationShape.vector_size);
      for (float& v : s.observation.vector) v = (rng() % 1000) / 1000.0f;
      s.action = rng() % kNumActions;
      s.legal_mask = 7;
      s.reward = (rng() % 100) / 50.0f - 1;
      s.root_value = (rng() % 1000) / 100.0f;
      s.policy = {0.5f, 0.3f, 0.2f};
      t.steps.push_back(std::move(s));
    }
    replay->Insert(std::move(t));
  }
}

// "Learner steps / s": Learner::Step at the cpu preset's training sizes.
int LearnerRow(MuZeroNetwork network, const torch::Device& device) {
  TrainingConfig training = features::CpuPreset().training();
  agent::ReplayBuffer replay(training.replay_size(), training.seed());
  FillSyntheticReplay(200, 50, &replay);
  absl::StatusOr<std::unique_ptr<Learner>> learner =
      Learner::Create(training, features::CpuPreset().search().discount(),
                      std::move(network), &replay);
  if (!learner.ok()) {
    std::fprintf(stderr, "%s\n", learner.status().ToString().c_str());
    return 1;
  }
  const double step = SecondsPerCall(3.0, [&] {
    (void)(*learner)->Step();
    Sync(device);
  });
  std::printf("| Learner::Step (K=%d, n=%d) | %d | %.3f | %.1f steps/s |\n",
              training.unroll_steps(), training.td_steps(),
              training.batch_size(), step * 1e3, 1.0 / step);
  return 0;
}

int Run(int threads) {
  if (threads > 0) torch::set_num_threads(threads);
  const torch::Device device = DefaultDevice();
  const NetworkConfig config = SmallNetworkConfig();
  absl::StatusOr<MuZeroNetwork> created = CreateNetwork(config, kSmallObservationShape, device);
  if (!created.ok()) {
    std::fprintf(stderr, "%s\n", created.status().ToString().c_str());
    return 1;
  }
  MuZeroNetwork network = *created;
  int64_t parameters = 0;
  for (const torch::Tensor& p : network->parameters()) parameters += p.numel();
  const auto options = torch::TensorOptions().device(device);

  std::printf(
      "Model bench: %s, %u cores, %d torch threads, %lld parameters\n\n",
      device.str().c_str(), std::thread::hardware_concurrency(),
      torch::get_num_threads(), static_cast<long long>(parameters));
  std::printf("| pass | batch | ms / call | samples / s |\n");
  std::printf("|---|---:|---:|---:|\n");
  for (const int batch : {1, 8, 32, 128}) {
    const torch::Tensor occupancy =
        torch::rand({batch, 1, kSmallObservationShape.time_bins, kSmallObservationShape.byte_bins}, options);
    const torch::Tensor vector =
        torch::rand({batch, kSmallObservationShape.vector_size}, options);
    const torch::Tensor hidden =
        torch::rand({batch, config.hidden_size()}, options);
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
    std::printf("| initial | %d | %.3f | %.0f |\n", batch, initial * 1e3,
                batch / initial);
    std::printf("| recurrent | %d | %.3f | %.0f |\n", batch, recurrent * 1e3,
                batch / recurrent);
  }

  constexpr int kBatch = 64;
  constexpr int kUnroll = 5;
  const torch::Tensor occupancy =
      torch::rand({kBatch, 1, kSmallObservationShape.time_bins, kSmallObservationShape.byte_bins}, options);
  const torch::Tensor vector =
      torch::rand({kBatch, kSmallObservationShape.vector_size}, options);
  const torch::Tensor actions = torch::randint(
      0, kNumActions, {kUnroll, kBatch}, options.dtype(torch::kLong));
  const torch::Tensor policy_target =
      torch::full({kBatch, kNumActions}, 1.0 / kNumActions, options);
  const torch::Tensor value_target = ScalarToSupportTensor(
      torch::rand({kBatch}, options) * 10, config.value_support_size());
  const torch::Tensor reward_target = ScalarToSupportTensor(
      torch::rand({kBatch}, options), config.reward_support_size());
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
  std::printf("| learner step (K=%d) | %d | %.3f | %.0f |\n", kUnroll, kBatch,
              learner * 1e3, kBatch / learner);
  return LearnerRow(network, device);
}

}  // namespace
}  // namespace mmapzero::model

int main(int argc, char** argv) {
  return mmapzero::model::Run(argc > 1 ? std::atoi(argv[1]) : 0);
}
