// bench/search: simulations per second of BatchedSearch.
//
// 1. With a fake constant-time evaluator: the search's own cost (selection,
//    expansion, backup, batching; plus the engine's apply/undo in
//    REAL_GAME). Games searched at once: 1, 8, 32; simulations per search:
//    16, 64.
// 2. With LibTorch (MMAPZERO_WITH_TORCH): self-play's wiring with the `cpu`
//    preset's network (random weights) behind a NetworkEvaluator and
//    features::Observe as the ObservationSource, playing examples/small.json
//    and examples/medium.json (each game searches, applies the chosen action
//    and restarts when it ends). A timing decorator around the evaluator and
//    the observation source splits the search's wall time into network
//    (evaluator calls, staging and decoding included), feature extraction
//    and the rest; "overhead" is search time / network time. Games at once:
//    1, 8, 32; simulations: 24 (the preset's) and 8.
//
// Each row is the best of several runs (3 of at least 0.5 s for the fake
// evaluator; --repeats of at least --seconds of search time with the
// network), so that a burst of load from other processes on a shared
// machine spoils one run, not the figure. Prints Markdown tables with the
// core count (for docs/benchmarks.md).
// Usage: search_bench [--torch_threads=N (default 1)] [--seconds=S (default
// 1)] [--repeats=R (default 3)].
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/types/span.h"
#include "common/game/mmap_game.h"
#include "common/game/program.h"
#include "common/search/batched_search.h"
#include "common/search/evaluator.h"

#ifdef MMAPZERO_WITH_TORCH
#include <torch/torch.h>

#include "common/features/config_presets.h"
#include "common/features/feature_extractor.h"
#include "common/model/compute_threads.h"
#include "common/model/network_evaluator.h"
#include "common/model/networks.h"
#include "common/solvers/search_budget.h"
#include "common/training/self_play.h"
#include "common/workload/proto_io.h"
#endif

namespace mmapzero {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kHiddenSize = 256;

// Answers every position with the same inference: O(batch) copying only.
class ConstantEvaluator : public search::Evaluator {
 public:
  void InitialInference(
      absl::Span<const features::Observation* const> observations,
      std::vector<search::Inference>* out) override {
    Fill(observations.size(), out);
  }
  void RecurrentInference(absl::Span<const std::vector<float>* const> hidden,
                          absl::Span<const int> /*actions*/,
                          std::vector<search::Inference>* out) override {
    Fill(hidden.size(), out);
  }

 private:
  static void Fill(size_t n, std::vector<search::Inference>* out) {
    out->resize(n);
    for (search::Inference& inference : *out) {
      inference.hidden.assign(kHiddenSize, 0.5f);
      inference.value = 0.1f;
      inference.reward = 0.01f;
      inference.policy_logits = {0.1f, 0.0f, -0.1f};
    }
  }
};

std::unique_ptr<search::Evaluator> MakeEvaluator() {
  return std::make_unique<ConstantEvaluator>();
}

void ConstantObserve(const game::MMapGame& game, features::Observation* out) {
  out->vector.assign(64, static_cast<float>(game.depth()));
  out->occupancy.assign(16 * 16, 0.0f);
}

// 256 operands, one per step, room for about a third of them at once.
std::shared_ptr<const game::Program> BenchProgram() {
  Workload w;
  w.set_name("search-bench");
  w.set_memory_size(3000);
  constexpr int kSteps = 256;
  for (int t = 0; t < kSteps; ++t) w.add_instructions()->set_supply_us(10);
  for (int t = 0; t < kSteps; ++t) {
    Buffer* b = w.add_buffers();
    b->set_id(t);
    b->set_target_time(t);
    b->set_size(100);
    b->set_tensor_id(t % 64);
    b->mutable_live_range()->set_start(0);
    b->mutable_live_range()->set_end(kSteps - 1);
    b->set_demand_us(5);
    b->set_benefit_us(1 + t % 7);
  }
  auto program = game::Program::Create(w);
  if (!program.ok()) {
    std::fprintf(stderr, "%s\n", program.status().ToString().c_str());
    std::abort();
  }
  return *program;
}

double SimulationsPerSecond(
    SearchConfig::Mode mode, int games, int simulations,
    const std::shared_ptr<const game::Program>& program) {
  SearchConfig config;
  config.set_mode(mode);
  config.set_simulations(simulations);
  config.set_discount(0.9999);
  config.set_pb_c_base(19652);
  config.set_pb_c_init(1.25);
  config.set_root_dirichlet_alpha(0.03);
  config.set_root_exploration_fraction(0.25);
  config.set_gumbel_considered_actions(3);
  auto evaluator = MakeEvaluator();
  search::BatchedSearch search(config, evaluator.get(), ConstantObserve);

  std::vector<game::MMapGame> states;
  for (int i = 0; i < games; ++i) {
    states.emplace_back(program);
    for (int k = 0; k < 3 * i % 50; ++k)
      states.back().ApplyAction(game::Action::kDrop);
  }
  std::vector<const game::MMapGame*> ptrs;
  for (const auto& s : states) ptrs.push_back(&s);
  std::vector<uint64_t> seeds(games);
  std::vector<search::SearchResult> results;

  int64_t searches = 0;
  double seconds = 0;
  const auto start = Clock::now();
  do {
    for (int i = 0; i < games; ++i) seeds[i] = searches * games + i;
    search.Run(ptrs, seeds, 1.0, &results);
    ++searches;
    seconds = std::chrono::duration<double>(Clock::now() - start).count();
  } while (seconds < 0.5);
  return static_cast<double>(searches) * games * simulations / seconds;
}

const char* ModeName(SearchConfig::Mode mode) {
  switch (mode) {
    case SearchConfig::LEARNED_MODEL:
      return "learned model";
    case SearchConfig::REAL_GAME:
      return "real game";
    case SearchConfig::GUMBEL:
      return "gumbel";
    default:
      return "policy only";
  }
}

void PrintConstantTable() {
  const auto program = BenchProgram();
  std::printf(
      "Search overhead, constant-time fake evaluator (hidden %d floats), one "
      "thread; %u cores.\n\n",
      kHiddenSize, std::thread::hardware_concurrency());
  std::printf(
      "| mode | games at once | simulations | simulations/s | us/simulation "
      "|\n");
  std::printf("| --- | ---: | ---: | ---: | ---: |\n");
  for (auto mode : {SearchConfig::LEARNED_MODEL, SearchConfig::GUMBEL,
                    SearchConfig::REAL_GAME}) {
    for (int games : {1, 8, 32}) {
      for (int simulations : {16, 64}) {
        double rate = 0;
        for (int repeat = 0; repeat < 3; ++repeat) {
          rate = std::max(
              rate, SimulationsPerSecond(mode, games, simulations, program));
        }
        std::printf("| %s | %d | %d | %.0f | %.2f |\n", ModeName(mode), games,
                    simulations, rate, 1e6 / rate);
      }
    }
  }
}

#ifdef MMAPZERO_WITH_TORCH

// Wall time and work of one kind of evaluator call.
struct CallTotals {
  double seconds = 0;
  int64_t calls = 0;
  int64_t positions = 0;
};

// Forwards to `inner`, adding up the wall time of its calls and the
// positions they evaluated.
class TimedEvaluator : public search::Evaluator {
 public:
  explicit TimedEvaluator(search::Evaluator* inner) : inner_(inner) {}

  void InitialInference(
      absl::Span<const features::Observation* const> observations,
      std::vector<search::Inference>* out) override {
    const Clock::time_point start = Clock::now();
    inner_->InitialInference(observations, out);
    Add(start, observations.size(), &initial_);
  }
  void RecurrentInference(absl::Span<const std::vector<float>* const> hidden,
                          absl::Span<const int> actions,
                          std::vector<search::Inference>* out) override {
    const Clock::time_point start = Clock::now();
    inner_->RecurrentInference(hidden, actions, out);
    Add(start, hidden.size(), &recurrent_);
  }

  const CallTotals& initial() const { return initial_; }
  const CallTotals& recurrent() const { return recurrent_; }
  void Reset() { initial_ = recurrent_ = CallTotals{}; }

 private:
  static void Add(Clock::time_point start, size_t positions,
                  CallTotals* totals) {
    totals->seconds +=
        std::chrono::duration<double>(Clock::now() - start).count();
    ++totals->calls;
    totals->positions += static_cast<int64_t>(positions);
  }

  search::Evaluator* inner_;
  CallTotals initial_;
  CallTotals recurrent_;
};

// One configuration's totals over the measured searches.
struct NetworkRun {
  double search_seconds = 0;   // inside BatchedSearch::Run
  double observe_seconds = 0;  // features::Observe, within the above
  CallTotals initial;          // evaluator calls, within the above
  CallTotals recurrent;
  int64_t moves = 0;
  int64_t simulations = 0;
};

absl::StatusOr<std::shared_ptr<const game::Program>> LoadProgram(
    const std::string& path) {
  absl::StatusOr<Workload> workload = ReadWorkload(path);
  if (!workload.ok()) return workload.status();
  return game::Program::Create(*workload);
}

// Self-play's loop (model/self_play.cc) without the trajectories: `games`
// games at once, one search per move, with the network `network` and the
// features of `config`; at least `min_seconds` of search after one warm-up
// move.
NetworkRun RunWithNetwork(const MuZeroConfig& config,
                          const model::MuZeroNetwork& network,
                          const std::shared_ptr<const game::Program>& program,
                          int games, int simulations, double min_seconds) {
  SearchConfig search_config = config.search();
  search_config.set_simulations(simulations);
  model::NetworkEvaluator network_evaluator(network);
  TimedEvaluator evaluator(&network_evaluator);
  NetworkRun run;
  search::BatchedSearch search(
      search_config, &evaluator,
      [&run, features = config.features()](const game::MMapGame& game,
                                           features::Observation* out) {
        const Clock::time_point start = Clock::now();
        features::Observe(game, features, out);
        run.observe_seconds +=
            std::chrono::duration<double>(Clock::now() - start).count();
      });

  std::vector<std::unique_ptr<game::MMapGame>> states;
  std::vector<const game::MMapGame*> ptrs;
  std::vector<uint64_t> seeds(games);
  std::vector<search::SearchResult> results;
  for (int i = 0; i < games; ++i) {
    states.push_back(std::make_unique<game::MMapGame>(program));
    ptrs.push_back(states.back().get());
  }
  uint64_t move = 0;
  auto one_move = [&] {
    for (int i = 0; i < games; ++i) seeds[i] = solvers::MixSeed(1, i, move);
    ++move;
    const Clock::time_point start = Clock::now();
    search.Run(ptrs, seeds, 1.0, &results);
    run.search_seconds +=
        std::chrono::duration<double>(Clock::now() - start).count();
    for (int i = 0; i < games; ++i) {
      states[i]->ApplyAction(results[i].action);
      if (states[i]->IsTerminal()) {
        states[i] = std::make_unique<game::MMapGame>(program);
        ptrs[i] = states[i].get();
      }
    }
  };
  one_move();  // warm-up: first allocations, LibTorch's first dispatches
  run = NetworkRun{};
  evaluator.Reset();
  while (run.search_seconds < min_seconds) {
    one_move();
    run.moves += games;
  }
  run.initial = evaluator.initial();
  run.recurrent = evaluator.recurrent();
  run.simulations = run.moves * simulations;
  return run;
}

void PrintNetworkRow(const char* workload, int games, int simulations,
                     const NetworkRun& run, double baseline_rate) {
  const double network = run.initial.seconds + run.recurrent.seconds;
  const double own = run.search_seconds - network - run.observe_seconds;
  const int64_t calls = run.initial.calls + run.recurrent.calls;
  const int64_t positions = run.initial.positions + run.recurrent.positions;
  const double rate = run.simulations / run.search_seconds;
  std::printf(
      "| %s | %d | %d | %.1f | %.0f | %.2fx | %.1f | %.1f | %.0f%% | %.1f%% | "
      "%.1f%% | %.2f | %.2fx |\n",
      workload, games, simulations, run.moves / run.search_seconds, rate,
      rate / baseline_rate, static_cast<double>(positions) / calls,
      1e6 * network / positions, 100 * network / run.search_seconds,
      100 * run.observe_seconds / run.search_seconds,
      100 * own / run.search_seconds, 1e6 * own / run.simulations,
      run.search_seconds / network);
}

int PrintNetworkTable(int torch_threads, double min_seconds, int repeats) {
  model::SetComputeThreads(torch_threads);
  torch::manual_seed(1);
  absl::StatusOr<MuZeroConfig> config = features::LoadMuZeroConfig("cpu", {});
  if (!config.ok()) {
    std::fprintf(stderr, "%s\n", config.status().ToString().c_str());
    return 1;
  }
  absl::StatusOr<model::MuZeroNetwork> network = model::CreateNetwork(
      config->network(), model::ShapeOf(config->features()));
  if (!network.ok()) {
    std::fprintf(stderr, "%s\n", network.status().ToString().c_str());
    return 1;
  }
  int64_t parameters = 0;
  for (const torch::Tensor& p : (*network)->parameters()) {
    parameters += p.numel();
  }
  const model::ObservationShape shape = (*network)->shape();
  std::printf(
      "\nSearch with the `cpu` preset network (%lld parameters, random "
      "weights; occupancy %dx%d, vector %d, hidden %d), mode %s, on %s; "
      "%u cores, %d torch threads, search on one thread.\n\n",
      static_cast<long long>(parameters), shape.time_bins, shape.byte_bins,
      shape.vector_size, config->network().hidden_size(),
      SearchConfig::Mode_Name(config->search().mode()).c_str(),
      model::DefaultDevice().str().c_str(), std::thread::hardware_concurrency(),
      torch::get_num_threads());
  std::printf(
      "| workload | games at once | simulations | moves/s | simulations/s | "
      "vs 1 game | positions / net call | net us / position | network | "
      "features | search's own | own us / simulation | overhead (search / "
      "network) |\n");
  std::printf(
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
      "---: | ---: | ---: |\n");
  for (const char* name : {"small", "medium"}) {
    const std::string path =
        std::string(MMAPZERO_SOURCE_DIR "/examples/") + name + ".json";
    absl::StatusOr<std::shared_ptr<const game::Program>> program =
        LoadProgram(path);
    if (!program.ok()) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(),
                   program.status().ToString().c_str());
      return 1;
    }
    for (int simulations : {config->search().simulations(), 8}) {
      double baseline_rate = 0;
      for (int games : {1, 8, 32}) {
        NetworkRun run;
        for (int repeat = 0; repeat < repeats; ++repeat) {
          NetworkRun again = RunWithNetwork(*config, *network, *program, games,
                                            simulations, min_seconds);
          if (repeat == 0 || again.simulations / again.search_seconds >
                                 run.simulations / run.search_seconds) {
            run = again;
          }
        }
        const double rate = run.simulations / run.search_seconds;
        if (games == 1) baseline_rate = rate;
        PrintNetworkRow(name, games, simulations, run, baseline_rate);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}

#endif  // MMAPZERO_WITH_TORCH

}  // namespace
}  // namespace mmapzero

int main(int argc, char** argv) {
  int torch_threads = 1;
  double min_seconds = 1.0;
  int repeats = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--torch_threads=")) {
      torch_threads = std::atoi(argv[i] + 16);
    } else if (arg.starts_with("--seconds=")) {
      min_seconds = std::atof(argv[i] + 10);
    } else if (arg.starts_with("--repeats=")) {
      repeats = std::max(1, std::atoi(argv[i] + 10));
    } else {
      std::fprintf(stderr,
                   "usage: search_bench [--torch_threads=N] [--seconds=S] "
                   "[--repeats=R]\n");
      return 2;
    }
  }
  mmapzero::PrintConstantTable();
#ifdef MMAPZERO_WITH_TORCH
  return mmapzero::PrintNetworkTable(torch_threads, min_seconds, repeats);
#else
  (void)torch_threads;
  (void)min_seconds;
  (void)repeats;
  return 0;
#endif
}
