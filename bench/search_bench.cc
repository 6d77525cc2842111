// bench/search: simulations per second of BatchedSearch with a fake
// constant-time evaluator, i.e. the search's own overhead (selection,
// expansion, backup, batching; plus the engine's apply/undo in REAL_GAME).
// Games searched at once: 1, 8, 32; simulations per search: 16, 64.
//
// The evaluator is taken through the search::Evaluator interface, so the
// "search overhead vs network time" ratio is this table against the same
// run with the LibTorch evaluator plugged in at MakeEvaluator().
// Prints a Markdown table (for docs/benchmarks.md).
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "absl/types/span.h"
#include "common/game/mmap_game.h"
#include "common/game/program.h"
#include "common/search/batched_search.h"
#include "common/search/evaluator.h"

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

}  // namespace
}  // namespace mmapzero

int main() {
  using mmapzero::SearchConfig;
  const auto program = mmapzero::BenchProgram();
  std::printf(
      "Search overhead, constant-time fake evaluator (hidden %d floats), one "
      "thread; %u cores.\n\n",
      mmapzero::kHiddenSize, std::thread::hardware_concurrency());
  std::printf(
      "| mode | games at once | simulations | simulations/s | us/simulation "
      "|\n");
  std::printf("| --- | ---: | ---: | ---: | ---: |\n");
  for (auto mode : {SearchConfig::LEARNED_MODEL, SearchConfig::GUMBEL,
                    SearchConfig::REAL_GAME}) {
    for (int games : {1, 8, 32}) {
      for (int simulations : {16, 64}) {
        const double rate =
            mmapzero::SimulationsPerSecond(mode, games, simulations, program);
        std::printf("| %s | %d | %d | %.0f | %.2f |\n",
                    mmapzero::ModeName(mode), games, simulations, rate,
                    1e6 / rate);
      }
    }
  }
  return 0;
}
