// Conformance suite in the manner of OpenSpiel's basic_tests: random games on
// random small workloads (tight memory, alias groups, odd supplies) with
// undo and clone checked against the state they must restore.
#include <random>

#include "absl/strings/str_cat.h"
#include "common/game/mmap_game.h"
#include "gtest/gtest.h"

namespace mmapzero::game {
namespace {

// A random static-feature workload: a few tensors, each produced once and
// read a few times, random alias groups of equal-size tensors' buffers.
Workload RandomWorkload(std::mt19937_64& rng) {
  auto uniform = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  Workload workload;
  const int steps = uniform(3, 30);
  workload.set_memory_size(uniform(50, 400));
  workload.set_alignment(uniform(0, 1) ? 8 : 1);
  for (int t = 0; t < steps; ++t) {
    workload.add_instructions()->set_supply_us(uniform(0, 20));
  }
  const int tensors = uniform(1, 25);
  for (int x = 0; x < tensors; ++x) {
    const int64_t size = 8 * uniform(1, 12);
    const int start = uniform(0, steps - 1);
    const int end = uniform(start, steps - 1);
    std::vector<std::pair<int, bool>> uses = {{start, true}};
    for (int k = uniform(0, 3); k > 0; --k) uses.push_back({uniform(start, end), false});
    uses.push_back({end, false});
    const int alias = uniform(0, 3) == 0 ? static_cast<int>(size) : -1;
    for (auto [t, is_output] : uses) {
      Buffer* b = workload.add_buffers();
      b->set_id(workload.buffers_size() - 1);
      b->set_size(size);
      b->set_target_time(t);
      b->set_is_output(is_output);
      b->set_tensor_id(x);
      b->mutable_live_range()->set_start(start);
      b->mutable_live_range()->set_end(end);
      b->set_demand_us(uniform(0, 30));
      b->set_benefit_us(uniform(0, 10));
      if (alias >= 0 && uniform(0, 1)) b->set_alias_id(alias);
    }
  }
  return workload;
}

// Everything observable about a state, for equality after undo/clone.
std::string Snapshot(const MMapGame& game) {
  std::string s = game.ToSolution().SerializeAsString();
  for (int32_t t = 0; t < game.ledger().num_steps(); ++t) {
    absl::StrAppend(&s, game.ledger().remaining(t), ",");
  }
  absl::StrAppend(&s, "|", game.allocations().size(), "|", game.depth(), "|",
                  game.LegalActionMask());
  for (int a = 0; a < kNumActions; ++a) {
    const ActionOutcome& o = game.Outcome(static_cast<Action>(a));
    absl::StrAppend(&s, "|", o.offset, ":", o.interval_start, ":",
                    o.interval_end, ":", o.reward);
  }
  return s;
}

Action RandomLegal(const MMapGame& game, std::mt19937_64& rng) {
  std::vector<Action> legal = game.LegalActions();
  return legal[rng() % legal.size()];
}

class ConformanceTest : public ::testing::TestWithParam<bool> {};

TEST_P(ConformanceTest, RandomGamesUndoAndCloneRestoreState) {
  const bool drop_backup = GetParam();
  std::mt19937_64 rng(12345);
  int backups = 0;
  for (int trial = 0; trial < 300; ++trial) {
    auto program = Program::Create(RandomWorkload(rng));
    ASSERT_TRUE(program.ok()) << program.status();
    MMapGame game(*program, {.drop_backup = drop_backup});
    int guard = 0;
    while (!game.IsTerminal()) {
      ASSERT_LT(++guard, 10000) << "game does not end";
      ASSERT_NE(game.LegalActionMask(), 0) << "live state without legal action";
      const std::string before = Snapshot(game);
      const double return_before = game.Return();
      const Action action = RandomLegal(game, rng);
      MMapGame clone = game;
      game.ApplyAction(action);
      game.Undo();
      ASSERT_EQ(Snapshot(game), before) << "undo did not restore, trial " << trial;
      ASSERT_DOUBLE_EQ(game.Return(), return_before);
      const StepResult step = game.ApplyAction(action);
      clone.ApplyAction(action);
      ASSERT_EQ(Snapshot(clone), Snapshot(game)) << "clone diverged";
      backups += step.backed_up;
    }
    double sum = 0;
    for (const Transition& t : game.trajectory()) sum += t.reward;
    EXPECT_NEAR(sum, game.Return(), 1e-9);
    if (!game.infeasible()) {
      EXPECT_EQ(game.depth(), (*program)->num_buffers());
      EXPECT_NEAR(game.Latency(), (*program)->empty_latency_us() - game.Return(),
                  1e-9);
      EXPECT_GE(game.NormalisedReturn(), -1e-12);
      EXPECT_LE(game.NormalisedReturn(), 1 + 1e-12);
    } else {
      EXPECT_DOUBLE_EQ(game.Return(), 0);
    }
    // Unwind the whole episode: back to the initial state.
    while (!game.trajectory().empty()) game.Undo();
    EXPECT_EQ(Snapshot(game), Snapshot(MMapGame(*program, {.drop_backup = drop_backup})));
  }
  if (drop_backup) {
    EXPECT_GT(backups, 0) << "the random workloads never hit Drop-backup";
  }
}

INSTANTIATE_TEST_SUITE_P(WithAndWithoutDropBackup, ConformanceTest,
                         ::testing::Bool());

}  // namespace
}  // namespace mmapzero::game
