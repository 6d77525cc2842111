// Self-play with a tiny real network: complete games, one trajectory step per
// decision (forced moves folded, Drop-backup moves included), rewards
// summing to the scaled return, legal actions only, fast moves marked,
// reproducible from the seed.
#include "common/training/self_play.h"

#include <torch/torch.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/agent/target_scale.h"
#include "common/agent/targets.h"
#include "common/features/config_presets.h"
#include "common/model/compute_threads.h"
#include "common/solvers/policy.h"
#include "common/training/training_test_support.h"
#include "common/workload/example_program_for_tests.h"
#include "gtest/gtest.h"

namespace mmapzero::training {
namespace {

MuZeroConfig TinyConfig(int batch_games) {
  MuZeroConfig config = TinySizesConfig();
  config.mutable_network()->set_trunk(NetworkConfig::CONV);
  SearchConfig* s = config.mutable_search();
  s->set_mode(SearchConfig::LEARNED_MODEL);
  s->set_simulations(4);
  s->set_fast_move_fraction(0);
  s->set_batch_games(batch_games);
  // Every game from the start: its rewards are the whole game's.
  s->set_best_start_fraction(0);
  s->set_best_start_rejoin_moves(0);
  s->set_best_start_rules(false);  // the start alone, where a test gives one
  config.mutable_training()->set_target_scaling(TrainingConfig::RAW);
  return config;
}

// The cpu preset's search and targets on the tiny sizes.
MuZeroConfig TinyCpuConfig(int batch_games) {
  MuZeroConfig config = TinyConfig(batch_games);
  const MuZeroConfig cpu = features::CpuPreset();
  config.mutable_network()->set_trunk(cpu.network().trunk());
  *config.mutable_search() = cpu.search();
  config.mutable_search()->set_batch_games(batch_games);
  config.mutable_search()->set_best_start_fraction(0);
  config.mutable_search()->set_best_start_rejoin_moves(0);
  config.mutable_training()->set_target_scaling(
      cpu.training().target_scaling());
  return config;
}

model::MuZeroNetwork TinyNetwork(const MuZeroConfig& config) {
  model::SetComputeThreads(1);
  torch::manual_seed(7);
  auto network = model::CreateNetwork(
      config.network(), model::ShapeOf(config.features()), torch::kCPU);
  EXPECT_TRUE(network.ok()) << network.status();
  return *network;
}

struct Played {
  agent::Trajectory trajectory;
  std::vector<game::Transition> transitions;  // the engine's
  double game_return = 0;
  bool complete = false;
};

// Plays `games` games and returns what the sink saw.
std::vector<Played> Play(std::shared_ptr<const game::Program> program,
                         const MuZeroConfig& config, uint64_t seed,
                         int64_t games, SelfPlayCounters* counters = nullptr,
                         std::optional<Solution> start = std::nullopt) {
  std::vector<Played> played;
  SelfPlay::Options options{
      .config = config,
      .seed = seed,
      .game_options = {},
      .sink =
          [&played](const game::MMapGame& game, agent::Trajectory trajectory) {
            played.push_back(Played{std::move(trajectory), game.trajectory(),
                                    game.Return(), game.IsTerminal()});
          },
      .start = std::move(start)};
  auto actor =
      SelfPlay::Create(std::move(program), TinyNetwork(config), options);
  EXPECT_TRUE(actor.ok()) << actor.status();
  (*actor)->PlayGames(games);
  if (counters != nullptr) *counters = (*actor)->counters();
  return played;
}

// `scale`: target units per microsecond (agent::TargetScale).
void ExpectConsistent(const Played& played, double scale = 1.0) {
  const agent::Trajectory& t = played.trajectory;
  EXPECT_TRUE(played.complete);
  // The steps are the decisions: a subsequence of the engine's transitions
  // whose first is the game's first move; the others skipped were forced.
  ASSERT_FALSE(t.steps.empty());
  ASSERT_LE(t.steps.size(), played.transitions.size());
  EXPECT_EQ(t.steps[0].buffer, played.transitions[0].buffer);
  size_t j = 0;
  double sum = 0;
  for (size_t i = 0; i < t.steps.size(); ++i) {
    const agent::TrajectoryStep& step = t.steps[i];
    EXPECT_TRUE((step.legal_mask >> step.action) & 1) << "step " << i;
    if (i > 0) EXPECT_GT(std::popcount(step.legal_mask), 1) << "step " << i;
    while (
        j < played.transitions.size() &&
        (played.transitions[j].buffer != step.buffer ||
         static_cast<uint8_t>(played.transitions[j].action) != step.action)) {
      ++j;
    }
    ASSERT_LT(j, played.transitions.size()) << "step " << i << " not played";
    ++j;
    float policy_sum = 0;
    for (int a = 0; a < 3; ++a) {
      if (!((step.legal_mask >> a) & 1)) EXPECT_EQ(step.policy[a], 0);
      policy_sum += step.policy[a];
    }
    EXPECT_NEAR(policy_sum, 1, 1e-4);
    EXPECT_FALSE(step.observation.vector.empty());
    sum += step.reward;
  }
  EXPECT_NEAR(t.episode_return, played.game_return, 1e-6);
  EXPECT_NEAR(sum, scale * played.game_return, 1e-3 * (1 + std::abs(sum)));
}

TEST(SelfPlayTest, PlaysCompleteGamesWithConsistentTrajectories) {
  const MuZeroConfig config = TinyConfig(2);
  auto program = SmallExampleProgram();
  SelfPlayCounters counters;
  const std::vector<Played> played = Play(program, config, 3, 2, &counters);
  ASSERT_GE(played.size(), 2u);
  int64_t moves = 0;
  for (const Played& p : played) {
    ExpectConsistent(p);
    EXPECT_GE(p.trajectory.normalised_return, 0);
    moves += static_cast<int64_t>(p.trajectory.steps.size());
  }
  EXPECT_EQ(counters.games, static_cast<int64_t>(played.size()));
  EXPECT_GE(counters.moves, moves);
  // Every move is searched but the forced ones.
  EXPECT_GT(counters.forced_moves, 0);
  EXPECT_EQ(counters.fast_moves, 0);
  EXPECT_EQ(counters.simulations, (counters.moves - counters.forced_moves) * 4);
}

TEST(SelfPlayTest, CpuPresetSearchMarksFastMovesAndScalesRewards) {
  const MuZeroConfig config = TinyCpuConfig(4);
  ASSERT_EQ(config.search().mode(), SearchConfig::GUMBEL_REAL_GAME);
  ASSERT_GT(config.search().fast_move_fraction(), 0);
  auto program = SmallExampleProgram();
  const double scale = agent::kNormalisedFullReturn / program->max_return_us();
  SelfPlayCounters counters;
  const std::vector<Played> played = Play(program, config, 5, 4, &counters);
  ASSERT_GE(played.size(), 4u);
  int64_t fast = 0, searched = 0;
  for (const Played& p : played) {
    ExpectConsistent(p, scale);
    for (const agent::TrajectoryStep& step : p.trajectory.steps) {
      (step.fast_move ? fast : searched) += 1;
    }
    // NORMALISED: the whole game is worth 100 x its normalised return.
    double sum = 0;
    for (const agent::TrajectoryStep& step : p.trajectory.steps) {
      sum += step.reward;
    }
    EXPECT_NEAR(sum,
                agent::kNormalisedFullReturn * p.trajectory.normalised_return,
                1e-3 * (1 + sum));
  }
  EXPECT_GT(fast, 0);
  EXPECT_GT(searched, 0);
  EXPECT_GT(counters.fast_moves, 0);
  EXPECT_GT(counters.simulations, 0);
  // Fast moves run no simulation.
  EXPECT_LT(counters.simulations, (counters.moves - counters.forced_moves) *
                                      config.search().simulations());
}

TEST(SelfPlayTest, ReproducibleFromTheSeed) {
  const MuZeroConfig config = TinyConfig(2);
  auto program = SmallExampleProgram();
  const std::vector<Played> a = Play(program, config, 11, 2);
  const std::vector<Played> b = Play(program, config, 11, 2);
  ASSERT_EQ(a.size(), b.size());
  for (size_t g = 0; g < a.size(); ++g) {
    const auto& sa = a[g].trajectory.steps;
    const auto& sb = b[g].trajectory.steps;
    ASSERT_EQ(sa.size(), sb.size());
    for (size_t i = 0; i < sa.size(); ++i) {
      EXPECT_EQ(sa[i].action, sb[i].action);
      EXPECT_EQ(sa[i].reward, sb[i].reward);
      EXPECT_EQ(sa[i].root_value, sb[i].root_value);
      EXPECT_EQ(sa[i].policy, sb[i].policy);
      EXPECT_EQ(sa[i].observation.vector, sb[i].observation.vector);
    }
  }
}

// A complete game that puts every buffer it can in fast memory (the first
// legal of Copy, NoCopy, Drop).
Solution FastFirstSolution(std::shared_ptr<const game::Program> program) {
  game::MMapGame game(std::move(program));
  while (!game.IsTerminal()) {
    game.ApplyAction(
        static_cast<game::Action>(std::countr_zero(game.LegalActionMask())));
  }
  return game.ToSolution();
}

// Everything slow: almost every variation of it improves on it.
Solution DropAllSolution(std::shared_ptr<const game::Program> program) {
  game::MMapGame drop_all(std::move(program));
  while (!drop_all.IsTerminal()) drop_all.ApplyAction(game::Action::kDrop);
  return drop_all.ToSolution();
}

TEST(SelfPlayTest, BestStartsReplayAPrefixOfTheStartSolution) {
  MuZeroConfig config = TinyConfig(2);
  config.mutable_search()->set_best_start_fraction(1);
  auto program = SmallExampleProgram();
  const Solution start = FastFirstSolution(program);
  std::vector<int> start_action(program->num_buffers(), -1);
  for (const BufferDecision& d : start.decisions()) {
    start_action[d.buffer_id()] = d.action();
  }
  SelfPlayCounters counters;
  const std::vector<Played> played =
      Play(program, config, 3, 6, &counters, start);
  ASSERT_GE(played.size(), 6u);
  // Every game started on the start solution (or, once one beat it, on the
  // actor's own best, which replays it for as long as they agree).
  EXPECT_GE(counters.best_starts, counters.games);
  // A game's prefix is one of the start solution's or, once an earlier
  // game beat it, of an earlier game's (the actor's own best).
  std::vector<std::vector<int>> sources = {start_action};
  int with_prefix = 0;
  for (const Played& p : played) {
    EXPECT_TRUE(p.complete);
    ASSERT_FALSE(p.trajectory.steps.empty());
    EXPECT_LE(p.trajectory.steps.size(), p.transitions.size());
    // The moves before the agent's first decision are the prefix.
    size_t first = 0;
    while (first < p.transitions.size() &&
           p.transitions[first].buffer != p.trajectory.steps[0].buffer) {
      ++first;
    }
    ASSERT_LT(first, p.transitions.size());
    if (first > 0) ++with_prefix;
    bool matched = false;
    for (const std::vector<int>& source : sources) {
      bool same = true;
      for (size_t i = 0; i < first && same; ++i) {
        same = static_cast<int>(p.transitions[i].action) ==
               source[p.transitions[i].buffer];
      }
      matched = matched || same;
    }
    EXPECT_TRUE(matched) << "a prefix of " << first
                         << " moves that no earlier game played";
    std::vector<int> final_action(program->num_buffers(), -1);
    for (const game::Transition& t : p.transitions) {
      final_action[t.buffer] = static_cast<int>(t.action);
    }
    sources.push_back(std::move(final_action));
  }
  EXPECT_GT(with_prefix, 0);
}

TEST(SelfPlayTest, BestStartWindowFollowsTheStartSolutionAfterWDecisions) {
  MuZeroConfig config = TinyConfig(2);
  config.mutable_search()->set_best_start_fraction(1);
  config.mutable_search()->set_best_start_window(2);
  auto program = SmallExampleProgram();
  SelfPlayCounters counters;
  const std::vector<Played> played =
      Play(program, config, 5, 8, &counters, FastFirstSolution(program));
  ASSERT_GE(played.size(), 8u);
  EXPECT_GT(counters.followed_moves, 0);
  int64_t steps = 0, moves = 0;
  for (const Played& p : played) {
    EXPECT_TRUE(p.complete);
    steps += static_cast<int64_t>(p.trajectory.steps.size());
    moves += static_cast<int64_t>(p.transitions.size());
  }
  // The agent decides its window and the repairs; the start solution
  // plays the rest (and the prefix) without it.
  EXPECT_LT(steps * 4, moves);
  // Followed and forced moves need no network: the searched ones do.
  EXPECT_EQ(counters.simulations,
            (counters.moves - counters.forced_moves - counters.followed_moves) *
                config.search().simulations());
}

TEST(SelfPlayTest, BestStartDeviationsHandFollowedMovesBackToTheAgent) {
  MuZeroConfig config = TinyConfig(2);
  config.mutable_search()->set_best_start_fraction(1);
  config.mutable_search()->set_best_start_window(1);
  auto program = SmallExampleProgram();
  // Rate 1: every move past the window is the agent's again.
  config.mutable_search()->set_best_start_deviation_rate(1);
  SelfPlayCounters all;
  Play(program, config, 5, 4, &all, FastFirstSolution(program));
  EXPECT_EQ(all.followed_moves, 0);
  EXPECT_GT(all.best_starts, 0);
  // A small rate: mostly followed, some decided.
  config.mutable_search()->set_best_start_deviation_rate(0.2);
  SelfPlayCounters some;
  const std::vector<Played> played =
      Play(program, config, 5, 8, &some, FastFirstSolution(program));
  EXPECT_GT(some.followed_moves, 0);
  int64_t steps = 0;
  for (const Played& p : played) {
    steps += static_cast<int64_t>(p.trajectory.steps.size());
  }
  // More decisions than the windows (one per game) alone.
  EXPECT_GT(steps, static_cast<int64_t>(played.size()));
  // A horizon of 2: at most the window and 2 deviations a game, the rest
  // followed (or forced).
  config.mutable_search()->set_best_start_deviation_rate(1);
  config.mutable_search()->set_best_start_deviation_horizon(2);
  SelfPlayCounters bounded;
  for (const Played& p :
       Play(program, config, 5, 8, &bounded, FastFirstSolution(program))) {
    EXPECT_LE(p.trajectory.steps.size(), 3u);
  }
  EXPECT_GT(bounded.followed_moves, 0);
}

// While the best game stands, the window's W doubles every S variations,
// to at most 256 W: the 16 games an actor starts before any ends see no new
// best.
TEST(SelfPlayTest, WindowsGrowWhileTheBestGameStands) {
  auto program = SmallExampleProgram();
  const auto window_after_start = [&](int32_t stall) {
    MuZeroConfig config = TinyCpuConfig(16);
    config.mutable_search()->set_best_start_fraction(1);
    config.mutable_search()->set_best_start_window(1);
    config.mutable_search()->set_best_start_stall_variations(stall);
    SelfPlay::Options options{.config = config,
                              .seed = 1,
                              .game_options = {},
                              .sink = {},
                              .start = DropAllSolution(program)};
    auto actor = SelfPlay::Create(program, TinyNetwork(config), options);
    EXPECT_TRUE(actor.ok()) << actor.status();
    return (*actor)->counters().window;
  };
  EXPECT_EQ(window_after_start(0), 1);
  EXPECT_EQ(window_after_start(2), 128);  // the 16th start: 15 / 2 doublings
  EXPECT_EQ(window_after_start(1), 256);  // 15 doublings, capped at 8
}

// A new best shares its predecessor's snapshots up to where the two games
// part, and the rest are made when first needed: every game started from
// one must be the game its own moves make from the start.
TEST(SelfPlayTest, GamesStartedFromSharedSnapshotsAreTheGamesTheirMovesMake) {
  MuZeroConfig config = TinyCpuConfig(8);
  config.mutable_search()->set_best_start_fraction(1);
  config.mutable_search()->set_best_start_window(4);
  config.mutable_search()->set_best_start_deviation_rate(0.02);
  auto program = SmallExampleProgram();
  SelfPlayCounters counters;
  const Solution start = DropAllSolution(program);
  const std::vector<Played> played =
      Play(program, config, 3, 96, &counters, start);
  EXPECT_GT(counters.best_starts, 0);
  int new_bests = 0;
  double best = start.return_us();
  for (const Played& p : played) {
    ASSERT_TRUE(p.complete);
    if (p.game_return > best) best = p.game_return, ++new_bests;
    game::MMapGame replay(program);
    for (const game::Transition& t : p.transitions) {
      ASSERT_FALSE(replay.IsTerminal());
      ASSERT_EQ(replay.CurrentBuffer(), t.buffer);
      ASSERT_TRUE((replay.LegalActionMask() >> static_cast<int>(t.action)) & 1);
      EXPECT_NEAR(replay.ApplyAction(t.action).transition_reward(), t.reward,
                  1e-9 * (1 + std::abs(t.reward)));
    }
    EXPECT_TRUE(replay.IsTerminal());
    EXPECT_NEAR(replay.Return(), p.game_return,
                1e-9 * (1 + std::abs(p.game_return)));
  }
  // Several bests were adopted in turn, so snapshots were shared.
  EXPECT_GE(new_bests, 2);
}

// The actions of a complete game, by buffer id.
std::vector<int> ActionsOf(const std::vector<game::Transition>& transitions,
                           int buffers) {
  std::vector<int> actions(buffers, -1);
  for (const game::Transition& t : transitions) {
    actions[t.buffer] = static_cast<int>(t.action);
  }
  return actions;
}

// Plays `game` to its end following `source` (by buffer id), repaired as
// self-play repairs a followed move: the other fast action, else Drop.
double FollowToTheEnd(game::MMapGame game, const std::vector<int>& source) {
  while (!game.IsTerminal()) {
    const uint8_t mask = game.LegalActionMask();
    int action = source[game.CurrentBuffer()];
    if (!((mask >> action) & 1) && action != 2) action = 1 - action;
    if (!((mask >> action) & 1)) action = 2;
    if (!((mask >> action) & 1)) action = std::countr_zero(mask);
    game.ApplyAction(static_cast<game::Action>(action));
  }
  return game.Return();
}

// Best starts with a window of 2 prior-drawn decisions that rejoin after 8
// moves like the best game's.
MuZeroConfig RejoiningConfig(int batch_games) {
  MuZeroConfig config = TinyConfig(batch_games);
  SearchConfig* search = config.mutable_search();
  search->set_best_start_fraction(1);
  search->set_best_start_window(2);
  search->set_best_start_rejoin_moves(8);
  search->set_mode(SearchConfig::POLICY_ONLY);
  return config;
}

// The game of the greedy policy `rule` (solvers::MakePolicy).
Solution RuleSolution(std::shared_ptr<const game::Program> program,
                      const std::string& rule) {
  auto policy = solvers::MakePolicy(rule, /*seed=*/1);
  EXPECT_TRUE(policy.ok()) << policy.status();
  game::MMapGame game(std::move(program));
  solvers::PlayOut(game, **policy);
  return game.ToSolution();
}

TEST(SelfPlayTest, AGreedyRuleThatBeatsTheStartIsTheFirstBest) {
  auto program = SmallExampleProgram();
  const Solution fast_first = RuleSolution(program, "fast-first");
  const Solution copy_first = RuleSolution(program, "copy-first");
  const Solution& faster =
      fast_first.return_us() >= copy_first.return_us() ? fast_first
                                                       : copy_first;
  const double rules = faster.return_us();
  const Solution drop_all = DropAllSolution(program);
  ASSERT_GT(rules, drop_all.return_us());
  // The first solution handed out, and the actor's best before any game.
  const auto first_solution = [&](bool rules_on, const Solution& start,
                                  std::optional<double>* best_before) {
    MuZeroConfig config = RejoiningConfig(4);
    config.mutable_search()->set_best_start_rules(rules_on);
    std::optional<double> first;
    SelfPlay::Options options{.config = config,
                              .seed = 1,
                              .game_options = {},
                              .sink = {},
                              .start = start,
                              .max_segment_steps = 0,
                              .solution_sink =
                                  [&](const game::MMapGame& game) {
                                    if (!first) first = game.Return();
                                  }};
    auto actor = SelfPlay::Create(program, TinyNetwork(config), options);
    EXPECT_TRUE(actor.ok()) << actor.status();
    *best_before = (*actor)->best_return_us();
    (*actor)->Step();
    return first;
  };
  std::optional<double> best_before;
  EXPECT_EQ(first_solution(true, drop_all, &best_before), rules);
  EXPECT_EQ(best_before, rules);
  // Off, or a start at least as fast: the start alone.
  EXPECT_EQ(first_solution(false, drop_all, &best_before), std::nullopt);
  EXPECT_EQ(best_before, std::nullopt);
  EXPECT_EQ(first_solution(true, faster, &best_before), std::nullopt);
  EXPECT_EQ(best_before, std::nullopt);
}

TEST(SelfPlayTest, VariationsEndWhereTheyRejoinTheBestGame) {
  MuZeroConfig config = RejoiningConfig(4);
  auto program = SmallExampleProgram();
  const Solution start = FastFirstSolution(program);
  // Whole games so far, newest last: a variation follows one of them.
  std::vector<std::vector<int>> sources(
      1, std::vector<int>(program->num_buffers(), -1));
  for (const BufferDecision& d : start.decisions()) {
    sources[0][d.buffer_id()] = d.action();
  }
  double best = start.return_us();
  int rejoined = 0, exact = 0, complete = 0;
  SelfPlay::Options options{
      .config = config,
      .seed = 11,
      .game_options = {},
      .sink = [&](const game::MMapGame& game, agent::Trajectory trajectory) {
        if (!trajectory.rejoined) {
          ++complete;
          EXPECT_TRUE(game.IsTerminal());
          EXPECT_NEAR(trajectory.episode_return, game.Return(), 1e-6);
          sources.push_back(
              ActionsOf(game.trajectory(), program->num_buffers()));
          best = std::max(best, game.Return());
          return;
        }
        ++rejoined;
        // Cut short: not the end, and no better than the best game there
        // was (only a variation that looks better is played out).
        EXPECT_FALSE(game.IsTerminal());
        EXPECT_LE(trajectory.episode_return, best + 1e-9);
        EXPECT_NEAR(trajectory.normalised_return,
                    trajectory.episode_return / program->max_return_us(), 1e-9);
        // Its return is what following its best game to the end gives.
        for (const std::vector<int>& source : sources) {
          if (std::abs(FollowToTheEnd(game, source) -
                       trajectory.episode_return) <= 1e-6) {
            ++exact;
            break;
          }
        }
      }};
  // Rebased variations that became the best are followed too.
  options.solution_sink = [&](const game::MMapGame& game) {
    sources.push_back(ActionsOf(game.trajectory(), program->num_buffers()));
    best = std::max(best, game.Return());
  };
  auto actor = SelfPlay::Create(program, TinyNetwork(config), options);
  ASSERT_TRUE(actor.ok()) << actor.status();
  (*actor)->PlayGames(60);
  EXPECT_GT(rejoined, 10) << "complete games: " << complete;
  EXPECT_EQ((*actor)->counters().rejoined, rejoined);
  // The estimate is the true completion: the followed moves repeat the best
  // game's once the variation has rejoined it.
  EXPECT_GE(exact, rejoined * 9 / 10) << exact << " of " << rejoined;
  // Some variations decided as the best game did and rejoined unchanged.
  EXPECT_LE((*actor)->counters().unchanged, rejoined);
  // Without rejoining, every game is played to its end.
  config.mutable_search()->set_best_start_rejoin_moves(0);
  SelfPlayCounters counters;
  for (const Played& p : Play(program, config, 11, 20, &counters, start)) {
    EXPECT_TRUE(p.complete);
  }
  EXPECT_EQ(counters.rejoined, 0);
}

TEST(SelfPlayTest, VariationsThatBeatAnOlderBestAreRebasedOntoTheNewOne) {
  MuZeroConfig config = RejoiningConfig(16);
  auto program = SmallExampleProgram();
  // Several variations improve at once in the 16 games played in
  // lock-step.
  const Solution start = DropAllSolution(program);
  double best = start.return_us();  // of every complete game seen
  int offered = 0;
  SelfPlay::Options options{
      .config = config,
      .seed = 5,
      .game_options = {},
      .sink =
          [&](const game::MMapGame& game, agent::Trajectory trajectory) {
            if (!trajectory.rejoined) best = std::max(best, game.Return());
          },
      .start = start,
      .max_segment_steps = 0,
      .solution_sink =
          [&](const game::MMapGame& game) {
            // A whole, feasible game better than every game before it.
            ++offered;
            EXPECT_TRUE(game.IsTerminal());
            EXPECT_FALSE(game.infeasible());
            EXPECT_GT(game.Return(), best);
            best = game.Return();
          }};
  auto actor = SelfPlay::Create(program, TinyNetwork(config), options);
  ASSERT_TRUE(actor.ok()) << actor.status();
  (*actor)->PlayGames(400);
  const SelfPlayCounters& counters = (*actor)->counters();
  EXPECT_GT(counters.rebased, 0);
  EXPECT_EQ(counters.rebase_wins, offered);
  // The actor's best is the best of its games and the rebased ones.
  ASSERT_TRUE((*actor)->best_return_us().has_value());
  EXPECT_EQ(*(*actor)->best_return_us(), best);
}

TEST(SelfPlayTest, LongGamesReachTheSinkInSegmentsThatContinue) {
  MuZeroConfig config = TinyConfig(1);
  config.mutable_search()->set_mode(SearchConfig::POLICY_ONLY);
  auto program = SmallExampleProgram();
  const auto play = [&](int32_t segment_steps) {
    std::vector<agent::Trajectory> pieces;
    SelfPlay::Options options{
        .config = config,
        .seed = 3,
        .game_options = {},
        .sink = [&pieces](
                    const game::MMapGame&,
                    agent::Trajectory t) { pieces.push_back(std::move(t)); },
        .start = std::nullopt,
        .max_segment_steps = segment_steps};
    auto actor = SelfPlay::Create(program, TinyNetwork(config), options);
    EXPECT_TRUE(actor.ok()) << actor.status();
    (*actor)->PlayGames(2);
    return pieces;
  };
  const std::vector<agent::Trajectory> whole = play(0);
  const std::vector<agent::Trajectory> pieces = play(16);
  const int context =
      config.training().unroll_steps() + config.training().td_steps();
  ASSERT_EQ(whole.size(), 2u);
  ASSERT_GT(whole[0].steps.size(), 16u + context);
  // The positions of each game's pieces, in order, are the whole game's
  // steps: the same game (seeds do not depend on the segmenting), cut
  // every 16 positions, each cut carrying the next K + n steps as context.
  size_t p = 0;
  for (const agent::Trajectory& game : whole) {
    std::vector<agent::TrajectoryStep> joined;
    for (;; ++p) {
      ASSERT_LT(p, pieces.size());
      const agent::Trajectory& piece = pieces[p];
      if (!piece.continues) {
        EXPECT_EQ(piece.context_steps, 0);
        joined.insert(joined.end(), piece.steps.begin(), piece.steps.end());
        break;
      }
      EXPECT_EQ(piece.context_steps, context);
      ASSERT_EQ(piece.steps.size(), 16u + context);
      EXPECT_EQ(agent::SampleableSteps(piece), 16);
      joined.insert(joined.end(), piece.steps.begin(),
                    piece.steps.begin() + 16);
      // The context is the game's next steps, and so the targets of every
      // position are the whole game's.
      for (int k = 0; k < context; ++k) {
        EXPECT_EQ(piece.steps[16 + k].buffer,
                  game.steps[joined.size() + k].buffer);
        EXPECT_EQ(piece.steps[16 + k].reward,
                  game.steps[joined.size() + k].reward);
      }
      const agent::TargetOptions options{
          .unroll_steps = config.training().unroll_steps(),
          .td_steps = config.training().td_steps(),
          .discount = config.search().discount()};
      for (int i = 0; i < 16; ++i) {
        const int whole_index = static_cast<int>(joined.size()) - 16 + i;
        EXPECT_EQ(agent::MakeTargets(piece, i, options).value,
                  agent::MakeTargets(game, whole_index, options).value);
      }
    }
    EXPECT_EQ(pieces[p].episode_return, game.episode_return);
    ++p;
    ASSERT_EQ(joined.size(), game.steps.size());
    for (size_t i = 0; i < joined.size(); ++i) {
      EXPECT_EQ(joined[i].buffer, game.steps[i].buffer);
      EXPECT_EQ(joined[i].action, game.steps[i].action);
      EXPECT_EQ(joined[i].reward, game.steps[i].reward);
    }
  }
}

// docs/game-engine.md, the game of mmap_game_rules_test.cc's DropBackupTest:
// buffers 0 and 2 form an alias group (benefits 3 and 2); with 0 and 1
// (benefit 5) both fast, 2 cannot be placed, so making 1 fast backs
// up to the start: its transition reward is 5 - (3 + 5) = -3.
Workload BackupWorkload() {
  Workload w;
  w.set_name("drop-backup");
  w.set_memory_size(100);
  for (int t = 0; t < 3; ++t) w.add_instructions()->set_supply_us(10);
  struct B {
    int target;
    bool output;
    int tensor, start, end;
    double benefit;
    int alias;
  };
  const B buffers[] = {{0, true, 0, 0, 0, 3, 1},
                       {1, true, 1, 1, 2, 5, -1},
                       {2, false, 0, 0, 2, 2, 1}};
  for (const B& spec : buffers) {
    Buffer* b = w.add_buffers();
    b->set_id(w.buffers_size() - 1);
    b->set_target_time(spec.target);
    b->set_is_output(spec.output);
    b->set_size(60);
    b->set_tensor_id(spec.tensor);
    b->mutable_live_range()->set_start(spec.start);
    b->mutable_live_range()->set_end(spec.end);
    b->set_demand_us(1);
    b->set_benefit_us(spec.benefit);
    if (spec.alias >= 0) b->set_alias_id(spec.alias);
  }
  return w;
}

TEST(SelfPlayTest, DropBackupStepIsRecordedWithItsPenalty) {
  auto program = game::Program::Create(BackupWorkload());
  ASSERT_TRUE(program.ok()) << program.status();
  // Acting on the untrained network's prior at temperature 1 reaches the
  // backup in about a sixth of the games (a 4-simulation search always
  // copies buffer 0, which keeps buffer 1 slow).
  MuZeroConfig config = TinyConfig(4);
  config.mutable_search()->set_mode(SearchConfig::POLICY_ONLY);
  const std::vector<Played> played = Play(*program, config, 5, 40);
  int backups = 0;
  for (const Played& p : played) {
    ExpectConsistent(p);
    if (p.trajectory.drop_backups == 0) continue;
    ++backups;
    // Steps: 0 fast (+3), 1 fast (backs up: 5 - 8), then the replay,
    // whose first move (buffer 0, its group now slow: Drop only, reward 0)
    // is forced and folded into step 1.
    const auto& steps = p.trajectory.steps;
    ASSERT_GE(steps.size(), 3u);
    EXPECT_EQ(steps[0].buffer, 0);
    EXPECT_FLOAT_EQ(steps[0].reward, 3);
    EXPECT_EQ(steps[1].buffer, 1);
    EXPECT_NE(steps[1].action, 2);  // Copy or NoCopy: fast
    EXPECT_FLOAT_EQ(steps[1].reward, -3);
    EXPECT_EQ(steps[2].buffer, 1);  // decided again after the backup
  }
  EXPECT_GT(backups, 0) << "no game backed up in " << played.size();
}

}  // namespace
}  // namespace mmapzero::training
