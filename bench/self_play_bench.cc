// bench/self_play: self-play throughput of one actor thread (one LibTorch
// thread) on a workload, for the actor configurations the agent has had,
// each measured for the same wall time in the same run:
//   previous-cpu   the cpu preset before the cheap actor: a conv trunk over
//                  a 32x32 occupancy map, learned-model MCTS with 24
//                  simulations on every move, 8 games in lock-step;
//   cpu            the cpu preset now: an MLP trunk over a 4x8 map, the
//                  Gumbel root over the real engine (3 simulations) on a
//                  quarter of the moves, the prior alone on the others,
//                  128 games in lock-step, forced moves without a network;
//   cpu-searched   the cpu preset with every move searched;
//   cpu-prior      the cpu preset acting on the prior alone (POLICY_ONLY).
// The network is untrained (throughput does not depend on its weights).
// Prints a Markdown table: moves/s (all engine moves), decisions/s (moves
// with a choice, recorded in trajectories), games/s and the ratio of moves/s
// to previous-cpu's, with the machine's core count.
//
// Usage: self_play_bench [SECONDS_PER_ROW] [WORKLOAD]
//   (defaults: 20, examples/medium.json)
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "common/features/config_presets.h"
#include "common/model/compute_threads.h"
#include "common/model/networks.h"
#include "common/training/self_play.h"
#include "common/workload/proto_io.h"

namespace mmapzero::model {
namespace {

using training::SelfPlay;
using training::SelfPlayCounters;

struct Variant {
  const char* name;
  std::vector<std::string> overrides;  // on the cpu preset
};

const std::vector<Variant>& Variants() {
  static const std::vector<Variant> variants = {
      {"previous-cpu",
       {"features.occupancy_time_bins=32", "features.occupancy_byte_bins=32",
        "features.target_occupancy_bins=32", "network.trunk=CONV",
        "network.resnet_channels=16", "network.resnet_blocks=1",
        "network.value_support_size=50", "network.reward_support_size=50",
        "search.mode=LEARNED_MODEL", "search.simulations=24",
        "search.fast_move_fraction=0", "search.batch_games=8",
        "training.target_scaling=RAW"}},
      {"cpu", {}},
      {"cpu-searched", {"search.fast_move_fraction=0"}},
      {"cpu-prior", {"search.mode=POLICY_ONLY"}},
  };
  return variants;
}

struct Row {
  double moves_per_s = 0;
  double decisions_per_s = 0;
  double games_per_s = 0;
  double simulations_per_s = 0;
};

Row Measure(const std::shared_ptr<const game::Program>& program,
            const MuZeroConfig& config, double seconds) {
  torch::manual_seed(1);
  absl::StatusOr<MuZeroNetwork> network =
      CreateNetwork(config.network(), ShapeOf(config.features()), torch::kCPU);
  if (!network.ok()) {
    std::fprintf(stderr, "%s\n", network.status().ToString().c_str());
    std::exit(1);
  }
  SelfPlay::Options options;
  options.config = config;
  options.seed = 1;
  absl::StatusOr<std::unique_ptr<SelfPlay>> actor =
      SelfPlay::Create(program, *network, std::move(options));
  if (!actor.ok()) {
    std::fprintf(stderr, "%s\n", actor.status().ToString().c_str());
    std::exit(1);
  }
  using Clock = std::chrono::steady_clock;
  (*actor)->Step();  // warm-up: allocations, first games
  const SelfPlayCounters start = (*actor)->counters();
  const Clock::time_point begin = Clock::now();
  double elapsed = 0;
  while (elapsed < seconds) {
    (*actor)->Step();
    elapsed = std::chrono::duration<double>(Clock::now() - begin).count();
  }
  const SelfPlayCounters& end = (*actor)->counters();
  // Decisions: the moves with a choice (forced ones need no network).
  const int64_t recorded =
      (end.moves - end.forced_moves) - (start.moves - start.forced_moves);
  return Row{
      .moves_per_s = (end.moves - start.moves) / elapsed,
      .decisions_per_s = recorded / elapsed,
      .games_per_s = (end.games - start.games) / elapsed,
      .simulations_per_s = (end.simulations - start.simulations) / elapsed};
}

}  // namespace
}  // namespace mmapzero::model

int main(int argc, char** argv) {
  using namespace mmapzero;
  const double seconds = argc > 1 ? std::atof(argv[1]) : 20.0;
  const std::string path =
      argc > 2 ? argv[2] : MMAPZERO_SOURCE_DIR "/examples/medium.json";
  model::SetComputeThreads(1);
  absl::StatusOr<Workload> workload = ReadWorkload(path);
  if (!workload.ok()) {
    std::fprintf(stderr, "%s\n", workload.status().ToString().c_str());
    return 1;
  }
  absl::StatusOr<std::shared_ptr<const game::Program>> program =
      game::Program::Create(*workload);
  if (!program.ok()) {
    std::fprintf(stderr, "%s\n", program.status().ToString().c_str());
    return 1;
  }
  std::printf(
      "self-play, one actor thread, 1 torch thread, %.0f s per row, %s "
      "(%d buffers), %u cores\n\n",
      seconds, workload->name().c_str(), (*program)->num_buffers(),
      std::thread::hardware_concurrency());
  std::printf(
      "| actor | moves/s | decisions/s | games/s | simulations/s | "
      "moves/s vs previous-cpu |\n| --- | ---: | ---: | ---: | ---: | ---: "
      "|\n");
  double baseline = 0;
  for (const model::Variant& variant : model::Variants()) {
    absl::StatusOr<MuZeroConfig> config =
        features::LoadMuZeroConfig("cpu", variant.overrides);
    if (!config.ok()) {
      std::fprintf(stderr, "%s: %s\n", variant.name,
                   config.status().ToString().c_str());
      return 1;
    }
    const model::Row row = model::Measure(*program, *config, seconds);
    if (baseline == 0) baseline = row.moves_per_s;
    std::printf("| %s | %.0f | %.0f | %.2f | %.0f | %.1fx |\n", variant.name,
                row.moves_per_s, row.decisions_per_s, row.games_per_s,
                row.simulations_per_s, row.moves_per_s / baseline);
    std::fflush(stdout);
  }
  return 0;
}
