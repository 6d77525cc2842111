// Self-play with a tiny real network: complete games, one trajectory step per
// ApplyAction (Drop-backup moves included), rewards summing to the return,
// legal actions only, reproducible from the seed.
#include "common/model/self_play.h"

#include <torch/torch.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/features/config_presets.h"
#include "common/workload/proto_io.h"
#include "gtest/gtest.h"

namespace mmapzero::model {
namespace {

MuZeroConfig TinyConfig(int batch_games) {
  MuZeroConfig config = features::CpuPreset();
  FeatureConfig* f = config.mutable_features();
  f->set_next_buffers(2);
  f->set_same_tensor_buffers(1);
  f->set_occupancy_time_bins(8);
  f->set_occupancy_byte_bins(8);
  f->set_occupancy_window_steps(16);
  f->set_target_occupancy_bins(8);
  f->set_supply_window_steps(8);
  NetworkConfig* n = config.mutable_network();
  n->set_hidden_size(16);
  n->set_resnet_channels(4);
  n->set_resnet_blocks(1);
  n->set_mlp_hidden(16);
  n->set_value_support_size(10);
  n->set_reward_support_size(10);
  config.mutable_search()->set_simulations(4);
  config.mutable_search()->set_batch_games(batch_games);
  return config;
}

MuZeroNetwork TinyNetwork(const MuZeroConfig& config) {
  torch::set_num_threads(1);
  torch::manual_seed(7);
  auto network =
      CreateNetwork(config.network(), ShapeOf(config.features()), torch::kCPU);
  EXPECT_TRUE(network.ok()) << network.status();
  return *network;
}

std::shared_ptr<const game::Program> SmallProgram() {
  auto workload = ReadWorkload(MMAPZERO_SOURCE_DIR "/examples/small.json");
  EXPECT_TRUE(workload.ok()) << workload.status();
  auto program = game::Program::Create(*workload);
  EXPECT_TRUE(program.ok()) << program.status();
  return *program;
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
                         int64_t games, SelfPlayCounters* counters = nullptr) {
  std::vector<Played> played;
  SelfPlay::Options options{
      .config = config,
      .seed = seed,
      .game_options = {},
      .sink = [&played](const game::MMapGame& game,
                        agent::Trajectory trajectory) {
        played.push_back(Played{std::move(trajectory), game.trajectory(),
                                game.Return(), game.IsTerminal()});
      }};
  auto actor =
      SelfPlay::Create(std::move(program), TinyNetwork(config), options);
  EXPECT_TRUE(actor.ok()) << actor.status();
  (*actor)->PlayGames(games);
  if (counters != nullptr) *counters = (*actor)->counters();
  return played;
}

void ExpectConsistent(const Played& played) {
  const agent::Trajectory& t = played.trajectory;
  EXPECT_TRUE(played.complete);
  // One step per ApplyAction, Drop-backup moves included.
  ASSERT_EQ(t.steps.size(), played.transitions.size());
  double sum = 0;
  for (size_t i = 0; i < t.steps.size(); ++i) {
    const agent::TrajectoryStep& step = t.steps[i];
    EXPECT_TRUE((step.legal_mask >> step.action) & 1) << "step " << i;
    EXPECT_EQ(step.buffer, played.transitions[i].buffer);
    EXPECT_EQ(step.action, static_cast<uint8_t>(played.transitions[i].action));
    EXPECT_NEAR(step.reward, played.transitions[i].reward, 1e-4);
    float policy_sum = 0;
    for (int a = 0; a < 3; ++a) {
      if (!((step.legal_mask >> a) & 1)) EXPECT_EQ(step.policy[a], 0);
      policy_sum += step.policy[a];
    }
    EXPECT_NEAR(policy_sum, 1, 1e-4);
    EXPECT_FALSE(step.observation.occupancy.empty());
    sum += step.reward;
  }
  EXPECT_NEAR(t.episode_return, played.game_return, 1e-6);
  EXPECT_NEAR(sum, played.game_return, 1e-3 * (1 + std::abs(sum)));
}

TEST(SelfPlayTest, PlaysCompleteGamesWithConsistentTrajectories) {
  const MuZeroConfig config = TinyConfig(2);
  auto program = SmallProgram();
  SelfPlayCounters counters;
  const std::vector<Played> played = Play(program, config, 3, 2, &counters);
  ASSERT_GE(played.size(), 2u);
  int64_t moves = 0;
  for (const Played& p : played) {
    ExpectConsistent(p);
    EXPECT_GE(p.trajectory.steps.size(),
              static_cast<size_t>(program->num_buffers()));
    EXPECT_GE(p.trajectory.normalised_return, 0);
    moves += static_cast<int64_t>(p.trajectory.steps.size());
  }
  EXPECT_EQ(counters.games, static_cast<int64_t>(played.size()));
  EXPECT_GE(counters.moves, moves);
  EXPECT_EQ(counters.simulations, counters.moves * 4);
}

TEST(SelfPlayTest, ReproducibleFromTheSeed) {
  const MuZeroConfig config = TinyConfig(2);
  auto program = SmallProgram();
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

// MMAPGAME.md 4.5, the game of mmap_game_rules_test.cc's DropBackupTest:
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
    // Steps: 0 fast (+3), 1 fast (backs up: 5 - 8), then the replay.
    const auto& steps = p.trajectory.steps;
    ASSERT_GE(steps.size(), 5u);
    EXPECT_EQ(steps[0].buffer, 0);
    EXPECT_FLOAT_EQ(steps[0].reward, 3);
    EXPECT_EQ(steps[1].buffer, 1);
    EXPECT_NE(steps[1].action, 2);  // Copy or NoCopy: fast
    EXPECT_FLOAT_EQ(steps[1].reward, -3);
    EXPECT_EQ(steps[2].buffer, 0);  // back at the start, group slow
    EXPECT_EQ(steps[2].legal_mask, 1u << 2);
  }
  EXPECT_GT(backups, 0) << "no game backed up in " << played.size();
}

}  // namespace
}  // namespace mmapzero::model
