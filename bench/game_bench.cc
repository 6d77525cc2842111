// bench/game: moves per second of the MMapGame engine on generated workloads
// of about 300, 3,000, 10,000 and 16,500 buffers (the paper's range).
//
// Patterns, each on one core:
//   random      play random games to the end (mask + apply per move);
//   drop-all    the same walk taking Drop every move: the engine's floor,
//               the baseline the random figure is divided by;
//   undo        search-like branching: at every move apply and undo each
//               legal action, then apply a random one (every apply counts);
//   clone       the same branching with Clone() instead of Undo(): the
//               baseline the undo figure is divided by.
// Prints a Markdown table (for docs/benchmarks.md); --json for scripts.
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "common/game/mmap_game.h"
#include "common/solvers/random_policy.h"
#include "common/workload/generator.h"

namespace mmapzero {
namespace {

using game::Action;
using game::MMapGame;
using Clock = std::chrono::steady_clock;

struct Rate {
  int64_t moves = 0;
  double seconds = 0;
  double per_second() const { return seconds > 0 ? moves / seconds : 0; }
};

// Runs `game_fn(rng) -> moves` until `min_seconds` have passed.
template <typename Fn>
Rate Measure(double min_seconds, Fn&& game_fn) {
  Rate rate;
  std::mt19937_64 rng(7);
  const auto start = Clock::now();
  do {
    rate.moves += game_fn(rng);
    rate.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  } while (rate.seconds < min_seconds);
  return rate;
}

int64_t PlayRandom(const std::shared_ptr<const game::Program>& program,
                   std::mt19937_64& rng) {
  MMapGame game(program);
  int64_t moves = 0;
  for (; !game.IsTerminal(); ++moves) game.ApplyAction(solvers::UniformLegalAction(game, rng));
  return moves;
}

int64_t PlayDropAll(const std::shared_ptr<const game::Program>& program) {
  MMapGame game(program);
  int64_t moves = 0;
  for (; !game.IsTerminal(); ++moves) {
    (void)game.LegalActionMask();
    game.ApplyAction(Action::kDrop);
  }
  return moves;
}

// Branches on every legal action at each move, then follows a random one.
// `use_clone` branches by copying the game instead of undoing.
int64_t PlayBranching(const std::shared_ptr<const game::Program>& program,
                      std::mt19937_64& rng, bool use_clone, int max_moves) {
  MMapGame game(program);
  int64_t moves = 0;
  for (int depth = 0; depth < max_moves && !game.IsTerminal(); ++depth) {
    const uint8_t mask = game.LegalActionMask();
    for (int a = 0; a < game::kNumActions; ++a) {
      if (!(mask & (1u << a))) continue;
      if (use_clone) {
        MMapGame branch = game;
        branch.ApplyAction(static_cast<Action>(a));
      } else {
        game.ApplyAction(static_cast<Action>(a));
        game.Undo();
      }
      ++moves;
    }
    game.ApplyAction(solvers::UniformLegalAction(game, rng));
    ++moves;
  }
  return moves;
}

// What bounds a move: the allocations overlapping the intervals its
// placement queries look at. Averaged over the Copy/NoCopy outcomes with an
// allocation, in one random game (not timed).
double MeanOverlapsPerQuery(const std::shared_ptr<const game::Program>& program) {
  std::mt19937_64 rng(7);
  MMapGame game(program);
  int64_t queries = 0, overlaps = 0;
  while (!game.IsTerminal()) {
    for (Action action : {Action::kCopy, Action::kNoCopy}) {
      const game::ActionOutcome& outcome = game.Outcome(action);
      if (!outcome.has_allocation()) continue;
      ++queries;
      game.allocations().ForEachOverlapping(
          outcome.interval_start, outcome.interval_end,
          [&](const game::Rect&) { ++overlaps; });
    }
    game.ApplyAction(solvers::UniformLegalAction(game, rng));
  }
  return queries > 0 ? static_cast<double>(overlaps) / queries : 0;
}

struct Row {
  std::string workload;
  int32_t buffers, steps;
  double overlaps;
  Rate random, drop_all, undo, clone;
};

}  // namespace
}  // namespace mmapzero

int main(int argc, char** argv) {
  using namespace mmapzero;
  const bool json = argc > 1 && std::string(argv[1]) == "--json";
  const double seconds = 1.0;
  struct Case {
    const char* family;
    int buffers;
  };
  const std::vector<Case> cases = {{"mlp", 300},
                                   {"transformer", 3000},
                                   {"transformer", 10000},
                                   {"cnn", 16500}};
  std::vector<Row> rows;
  for (const Case& c : cases) {
    GeneratorOptions options;
    options.family = *ParseModelFamily(c.family);
    options.target_buffers = c.buffers;
    options.seed = 1;
    auto workload = GenerateWorkload(options);
    if (!workload.ok()) {
      std::fprintf(stderr, "generate %s/%d: %s\n", c.family, c.buffers,
                   std::string(workload.status().message()).c_str());
      return 1;
    }
    auto program = game::Program::Create(*workload);
    if (!program.ok()) {
      std::fprintf(stderr, "%s\n", std::string(program.status().message()).c_str());
      return 1;
    }
    Row row;
    row.workload = absl::StrFormat("%s-training-%d", c.family, c.buffers);
    row.buffers = (*program)->num_buffers();
    row.steps = (*program)->num_steps();
    std::fprintf(stderr, "bench %s: %d buffers, %d steps\n", row.workload.c_str(),
                 row.buffers, row.steps);
    row.overlaps = MeanOverlapsPerQuery(*program);
    row.random = Measure(seconds, [&](auto& rng) { return PlayRandom(*program, rng); });
    row.drop_all = Measure(seconds, [&](auto&) { return PlayDropAll(*program); });
    // Clone copies the whole state, so bound the branching walk's length to
    // keep the clone baseline measurable on the large workloads.
    const int walk = std::min(row.buffers, 2000);
    row.undo = Measure(seconds, [&](auto& rng) {
      return PlayBranching(*program, rng, /*use_clone=*/false, walk);
    });
    row.clone = Measure(seconds, [&](auto& rng) {
      return PlayBranching(*program, rng, /*use_clone=*/true, walk);
    });
    rows.push_back(row);
  }
  const unsigned cores = std::thread::hardware_concurrency();
  if (json) {
    std::printf("[");
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      std::printf(
          "%s{\"workload\": \"%s\", \"buffers\": %d, \"steps\": %d, "
          "\"overlaps_per_query\": %.1f, "
          "\"random_moves_per_s\": %.0f, \"drop_all_moves_per_s\": %.0f, "
          "\"undo_moves_per_s\": %.0f, \"clone_moves_per_s\": %.0f}",
          i ? ", " : "", r.workload.c_str(), r.buffers, r.steps, r.overlaps,
          r.random.per_second(), r.drop_all.per_second(), r.undo.per_second(),
          r.clone.per_second());
    }
    std::printf("]\n");
    return 0;
  }
  std::printf("Machine: %u cores (one used). Moves per second, one thread.\n\n", cores);
  std::printf(
      "| workload | buffers | steps | overlaps / query | random play | "
      "drop-all (baseline) | random / drop-all | branch+undo | "
      "branch+clone (baseline) | undo / clone |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Row& r : rows) {
    std::printf("| %s | %d | %d | %.0f | %.2fM | %.2fM | %.2f | %.2fM | %.3fM | %.1fx |\n",
                r.workload.c_str(), r.buffers, r.steps, r.overlaps,
                r.random.per_second() / 1e6,
                r.drop_all.per_second() / 1e6,
                r.random.per_second() / r.drop_all.per_second(),
                r.undo.per_second() / 1e6, r.clone.per_second() / 1e6,
                r.undo.per_second() / r.clone.per_second());
  }
  return 0;
}
