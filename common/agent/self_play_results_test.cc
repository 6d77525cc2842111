// SelfPlayResults: counting up to the game limit, the best game and its
// version, the recent mean, rejoined variations that count but are no
// solution, summed counters, and no lost game between threads.
#include "common/agent/self_play_results.h"

#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "common/workload/example_program_for_tests.h"

namespace mmapzero::agent {
namespace {

// A complete game: each buffer takes `preferred` when legal, else the
// first legal action (Drop last).
game::MMapGame Played(const std::shared_ptr<const game::Program>& program,
                      game::Action preferred) {
  game::MMapGame game(program);
  while (!game.IsTerminal()) {
    const uint8_t mask = game.LegalActionMask();
    if (mask & (1u << static_cast<int>(preferred))) {
      game.ApplyAction(preferred);
    } else {
      game.ApplyAction(game.LegalActions().front());
    }
  }
  return game;
}

Trajectory TrajectoryOf(const game::MMapGame& game, bool rejoined = false) {
  Trajectory trajectory;
  trajectory.episode_return = game.Return();
  trajectory.normalised_return = game.NormalisedReturn();
  trajectory.rejoined = rejoined;
  return trajectory;
}

TEST(SelfPlayResultsTest, KeepsTheBestGameWithARisingVersion) {
  const auto program = SmallExampleProgram();
  const game::MMapGame slow = Played(program, game::Action::kDrop);
  const game::MMapGame fast = Played(program, game::Action::kNoCopy);
  ASSERT_GT(fast.Return(), slow.Return());
  SelfPlayResults results(/*game_limit=*/0, /*actors=*/1);
  int64_t version = 0;
  EXPECT_FALSE(results.BestIfNewer(&version).has_value());

  EXPECT_TRUE(results.OnGame(slow, TrajectoryOf(slow)).new_best);
  const std::optional<Solution> first = results.BestIfNewer(&version);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(version, 1);
  EXPECT_FALSE(results.BestIfNewer(&version).has_value());  // nothing newer

  const SelfPlayResults::Counted counted =
      results.OnGame(fast, TrajectoryOf(fast));
  EXPECT_TRUE(counted.counted);
  EXPECT_TRUE(counted.new_best);
  EXPECT_FALSE(results.OnGame(slow, TrajectoryOf(slow)).new_best);
  const std::optional<Solution> second = results.BestIfNewer(&version);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(version, 2);
  EXPECT_DOUBLE_EQ(second->return_us(), fast.Return());
  EXPECT_DOUBLE_EQ(results.best().normalised_return(),
                   fast.NormalisedReturn());
  EXPECT_EQ(results.games(), 3);
}

TEST(SelfPlayResultsTest, ARejoinedVariationCountsButIsNoSolution) {
  const auto program = SmallExampleProgram();
  const game::MMapGame fast = Played(program, game::Action::kNoCopy);
  SelfPlayResults results(0, 1);
  const SelfPlayResults::Counted counted =
      results.OnGame(fast, TrajectoryOf(fast, /*rejoined=*/true));
  EXPECT_TRUE(counted.counted);
  EXPECT_FALSE(counted.new_best);
  EXPECT_FALSE(results.best().has_solution());
  EXPECT_DOUBLE_EQ(results.recent(), fast.NormalisedReturn());
  // The same game offered as a complete one (a rebased variation) is kept.
  EXPECT_TRUE(results.OfferSolution(fast));
  EXPECT_TRUE(results.best().has_solution());
  EXPECT_EQ(results.games(), 1);  // an offer is no game of its own
}

TEST(SelfPlayResultsTest, GamesBeyondTheLimitAreDropped) {
  const auto program = SmallExampleProgram();
  const game::MMapGame slow = Played(program, game::Action::kDrop);
  const game::MMapGame fast = Played(program, game::Action::kNoCopy);
  SelfPlayResults results(/*game_limit=*/2, 1);
  EXPECT_TRUE(results.OnGame(slow, TrajectoryOf(slow)).counted);
  EXPECT_FALSE(results.LimitReached());
  EXPECT_TRUE(results.OnGame(slow, TrajectoryOf(slow)).counted);
  EXPECT_TRUE(results.LimitReached());
  const SelfPlayResults::Counted late =
      results.OnGame(fast, TrajectoryOf(fast));
  EXPECT_FALSE(late.counted);
  EXPECT_FALSE(late.new_best);
  EXPECT_EQ(results.games(), 2);
  EXPECT_DOUBLE_EQ(results.best().normalised_return(),
                   slow.NormalisedReturn());
}

TEST(SelfPlayResultsTest, RecentIsTheMeanOfTheLastGames) {
  const auto program = SmallExampleProgram();
  const game::MMapGame slow = Played(program, game::Action::kDrop);
  const game::MMapGame fast = Played(program, game::Action::kNoCopy);
  SelfPlayResults results(0, 1, /*recent_games=*/2);
  EXPECT_LT(results.recent(), 0);  // before the first game
  results.OnGame(fast, TrajectoryOf(fast));
  results.OnGame(slow, TrajectoryOf(slow));
  results.OnGame(slow, TrajectoryOf(slow));  // pushes `fast` out
  EXPECT_DOUBLE_EQ(results.recent(), slow.NormalisedReturn());
}

TEST(SelfPlayResultsTest, TotalsSumTheActorsAndTakeTheWidestWindow) {
  SelfPlayResults results(0, 2);
  SelfPlayCounters a;
  a.moves = 10;
  a.simulations = 100;
  a.window = 3;
  SelfPlayCounters b;
  b.moves = 5;
  b.rejoined = 2;
  b.window = 8;
  results.SetCounters(0, a);
  results.SetCounters(1, b);
  const SelfPlayCounters total = results.totals();
  EXPECT_EQ(total.moves, 15);
  EXPECT_EQ(total.simulations, 100);
  EXPECT_EQ(total.rejoined, 2);
  EXPECT_EQ(total.window, 8);
  EXPECT_EQ(total.games, 0);  // games are counted by OnGame, not actors
}

TEST(SelfPlayResultsTest, GamesFromManyThreadsAreAllCounted) {
  const auto program = SmallExampleProgram();
  const game::MMapGame fast = Played(program, game::Action::kNoCopy);
  const Trajectory trajectory = TrajectoryOf(fast);
  SelfPlayResults results(/*game_limit=*/1000, 4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 400; ++i) {
        results.OnGame(fast, trajectory);
        SelfPlayCounters counters;
        counters.moves = i;
        results.SetCounters(t, counters);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(results.games(), 1000);  // the limit, never more
  EXPECT_EQ(results.totals().moves, 4 * 399);
}

}  // namespace
}  // namespace mmapzero::agent
