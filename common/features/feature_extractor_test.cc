#include "common/features/feature_extractor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/features/config_presets.h"
#include "common/game/mmap_game.h"
#include "common/workload/proto_io.h"
#include "gtest/gtest.h"

namespace mmapzero::features {
namespace {

using game::Action;
using game::MMapGame;
using game::Program;

// Four steps of supply 10, 100 bytes of fast memory:
//   buffer 0: output of tensor 0 at t = 0, 40 bytes, live [0, 3], demand 5
//   buffer 1: operand of tensor 0 at t = 2, 40 bytes, live [0, 3]
//   buffer 2: operand of tensor 1 at t = 3, 20 bytes, live [0, 3]
// Decision order 0, 1, 2.
Workload TinyWorkload() {
  Workload w;
  w.set_name("tiny");
  w.set_memory_size(100);
  for (int t = 0; t < 4; ++t) w.add_instructions()->set_supply_us(10);
  const auto add = [&](int target, bool output, int64_t size, int tensor,
                       double demand, double benefit) {
    Buffer* b = w.add_buffers();
    b->set_id(w.buffers_size() - 1);
    b->set_target_time(target);
    b->set_is_output(output);
    b->set_size(size);
    b->set_tensor_id(tensor);
    b->mutable_live_range()->set_start(0);
    b->mutable_live_range()->set_end(3);
    b->set_demand_us(demand);
    b->set_benefit_us(benefit);
  };
  add(0, true, 40, 0, 5, 3);
  add(2, false, 40, 0, 1, 2);
  add(3, false, 20, 1, 30, 1);
  return w;
}

std::shared_ptr<const Program> Compile(const Workload& workload) {
  auto program = Program::Create(workload);
  EXPECT_TRUE(program.ok()) << program.status();
  return *program;
}

std::shared_ptr<const Program> TinyProgram() { return Compile(TinyWorkload()); }

// Window of 4 steps (s_t = 2), a 4 x 5 grid (20 bytes a byte bin).
FeatureConfig TinyConfig() {
  FeatureConfig c;
  c.set_next_buffers(3);
  c.set_same_tensor_buffers(2);
  c.set_occupancy_time_bins(4);
  c.set_occupancy_byte_bins(5);
  c.set_occupancy_window_steps(4);
  c.set_target_occupancy_bins(5);
  c.set_supply_window_steps(4);
  return c;
}

std::shared_ptr<const Program> Medium() {
  auto workload =
      ReadWorkload(std::string(MMAPZERO_SOURCE_DIR) + "/examples/medium.json");
  EXPECT_TRUE(workload.ok()) << workload.status();
  auto program = Program::Create(*workload);
  EXPECT_TRUE(program.ok()) << program.status();
  return *program;
}

Action RandomLegal(const MMapGame& game, std::mt19937* rng) {
  const std::vector<Action> legal = game.LegalActions();
  return legal[std::uniform_int_distribution<size_t>(0,
                                                     legal.size() - 1)(*rng)];
}

TEST(FeatureSizesTest, MatchVectorAndOccupancySize) {
  const FeatureConfig cpu = CpuPreset().features();
  const FeatureConfig paper = PaperPreset().features();
  EXPECT_EQ(VectorSize(cpu), 12 * 6 + 16 + 16 + 18 + 10 + 6);
  EXPECT_EQ(OccupancySize(cpu), 4 * 8);
  EXPECT_EQ(VectorSize(paper), 12 * 9 + 128 + 64 + 18 + 10 + 6);
  EXPECT_EQ(OccupancySize(paper), 128 * 128);
  MMapGame game(TinyProgram());
  for (const FeatureConfig& c : {cpu, paper, TinyConfig()}) {
    Observation obs;
    Observe(game, c, &obs);
    EXPECT_EQ(static_cast<int>(obs.vector.size()), VectorSize(c));
    EXPECT_EQ(static_cast<int>(obs.occupancy.size()), OccupancySize(c));
  }
}

TEST(ObserveTest, HandMadeInitialState) {
  MMapGame game(TinyProgram());
  const FeatureConfig c = TinyConfig();
  Observation obs;
  Observe(game, c, &obs);
  const std::vector<float>& v = obs.vector;
  // Current buffer 0: present, size log2(41) / log2(101), output, t = 0.
  EXPECT_FLOAT_EQ(v[0], 1);
  EXPECT_NEAR(v[1], std::log2(41.0) / std::log2(101.0), 1e-6);
  EXPECT_FLOAT_EQ(v[2], 1);
  EXPECT_FLOAT_EQ(v[3], 0);
  EXPECT_FLOAT_EQ(v[5], 3.0f / 5.0f);  // live end 3: 3 / (3 + 2)
  // Mean latency s_l: L_t({}) = supply + benefits = 13, 10, 12, 11 -> 11.5.
  EXPECT_NEAR(v[6], 5.0 / 16.5, 1e-6);
  EXPECT_FLOAT_EQ(v[10], 1);  // same tensor as itself
  // Next buffers: 1 and 2, then an empty slot.
  EXPECT_FLOAT_EQ(v[12 * 1], 1);
  EXPECT_FLOAT_EQ(v[12 * 1 + 10], 1);  // buffer 1 shares tensor 0
  EXPECT_FLOAT_EQ(v[12 * 2], 1);
  EXPECT_FLOAT_EQ(v[12 * 2 + 10], 0);
  EXPECT_NEAR(v[12 * 2 + 1], std::log2(21.0) / std::log2(101.0), 1e-6);
  for (int i = 0; i < 12; ++i) EXPECT_FLOAT_EQ(v[12 * 3 + i], 0);
  // Same-tensor slots: buffer 1 (target 2: 2 / 4), then nothing.
  EXPECT_FLOAT_EQ(v[12 * 4], 1);
  EXPECT_FLOAT_EQ(v[12 * 4 + 3], 0.5f);
  EXPECT_FLOAT_EQ(v[12 * 5], 0);
  // All three actions legal; NoCopy of an output spans its live range at 0.
  const float* a = v.data() + ActionOffset(c);
  EXPECT_FLOAT_EQ(a[0], 1);
  EXPECT_FLOAT_EQ(a[6], 1);
  EXPECT_FLOAT_EQ(a[12], 1);
  EXPECT_FLOAT_EQ(a[6 + 1], 1);
  EXPECT_FLOAT_EQ(a[6 + 2], 0);
  EXPECT_FLOAT_EQ(a[6 + 3], 0.6f);
  EXPECT_FLOAT_EQ(a[6 + 4], 0);
  EXPECT_FLOAT_EQ(a[12 + 1], 0);  // Drop allocates nothing
  // Empty memory; supply 10 at steps 0..1 of the window [-2, 1].
  for (float x : obs.occupancy) EXPECT_FLOAT_EQ(x, 0);
  const float* supply = v.data() + SupplyOffset(c);
  EXPECT_FLOAT_EQ(supply[0], 0);
  EXPECT_FLOAT_EQ(supply[1], 0);
  EXPECT_FLOAT_EQ(supply[2], 10.0f / 21.5f);  // 10 / (10 + s_l)
  EXPECT_FLOAT_EQ(supply[3], 10.0f / 21.5f);
  EXPECT_FLOAT_EQ(v[GlobalOffset(c) + 9], 1);  // bias
}

TEST(ObserveTest, OccupancyAfterNoCopy) {
  MMapGame game(TinyProgram());
  game.ApplyAction(Action::kNoCopy);  // buffer 0 at [0, 3] x [0, 40)
  ASSERT_EQ(game.CurrentBuffer(), 1);
  const FeatureConfig c = TinyConfig();
  Observation obs;
  Observe(game, c, &obs);
  // Window [0, 3] around t = 2: every row is bytes [0, 40) of 5 x 20 bytes.
  const std::vector<float> row = {1, 1, 0, 0, 0};
  for (int t = 0; t < 4; ++t) {
    for (int b = 0; b < 5; ++b) {
      EXPECT_FLOAT_EQ(obs.occupancy[t * 5 + b], row[b]) << t << "," << b;
    }
  }
  const float* target = obs.vector.data() + TargetOccupancyOffset(c);
  for (int b = 0; b < 5; ++b) EXPECT_FLOAT_EQ(target[b], row[b]);
  // NoCopy keeps tensor 0 where it is: legal. Copy places it above, at 40.
  const float* a = obs.vector.data() + ActionOffset(c);
  EXPECT_FLOAT_EQ(a[6], 1);
  ASSERT_FLOAT_EQ(a[0], 1);
  EXPECT_FLOAT_EQ(a[4], 0.4f);
  EXPECT_FLOAT_EQ(obs.vector[GlobalOffset(c) + 1], 1.0f / 3.0f);  // depth
  EXPECT_FLOAT_EQ(obs.vector[GlobalOffset(c) + 0], 1.0f / 3.0f);  // moves
}

// The hardware section: the profile's numbers, the same in every state;
// without a profile only the memory size (and the alignment) speak.
TEST(ObserveTest, HardwareSectionIsTheProfiles) {
  const FeatureConfig c = TinyConfig();
  Observation obs;
  Observe(MMapGame(TinyProgram()), c, &obs);
  const float* h = obs.vector.data() + HardwareOffset(c);
  EXPECT_EQ(HardwareOffset(c) + kHardwareFeatures, VectorSize(c));
  EXPECT_FLOAT_EQ(h[0], 0);  // no profile
  EXPECT_FLOAT_EQ(h[1], static_cast<float>(std::log2(101.0) / 48));
  for (int i = 2; i < kHardwareFeatures; ++i) EXPECT_FLOAT_EQ(h[i], 0) << i;

  Workload w = TinyWorkload();
  w.set_alignment(4);
  HardwareProfile* hw = w.mutable_hardware();
  hw->set_name("test");
  hw->set_peak_tflops(1);            // 1e12 FLOP/s over 1e11 B/s: ridge 10
  hw->set_slow_bandwidth_gbps(100);
  hw->set_fast_bandwidth_gbps(400);  // 4x slow
  hw->set_copy_bandwidth_gbps(50);   // half of slow
  hw->set_fast_memory_bytes(100);
  hw->set_alignment(4);
  MMapGame game(Compile(w));
  Observe(game, c, &obs);
  std::vector<float> first(h, h + kHardwareFeatures);
  EXPECT_FLOAT_EQ(h[0], 1);
  EXPECT_FLOAT_EQ(h[1], static_cast<float>(std::log2(101.0) / 48));
  EXPECT_FLOAT_EQ(h[2], 2.0f / 8);
  EXPECT_FLOAT_EQ(h[3], -1.0f / 8);
  EXPECT_FLOAT_EQ(h[4], static_cast<float>(std::log2(11.0) / 16));
  EXPECT_FLOAT_EQ(h[5], static_cast<float>(2 / std::log2(101.0)));
  game.ApplyAction(Action::kNoCopy);
  Observe(game, c, &obs);
  h = obs.vector.data() + HardwareOffset(c);
  EXPECT_EQ(std::vector<float>(h, h + kHardwareFeatures), first);
}

TEST(ObserveTest, TerminalStateIsZero) {
  MMapGame game(TinyProgram());
  const FeatureConfig c = TinyConfig();
  Observation obs;
  Observe(game, c, &obs);
  while (!game.IsTerminal()) game.ApplyAction(Action::kDrop);
  Observe(game, c, &obs);
  ASSERT_EQ(static_cast<int>(obs.vector.size()), VectorSize(c));
  ASSERT_EQ(static_cast<int>(obs.occupancy.size()), OccupancySize(c));
  for (float x : obs.vector) EXPECT_EQ(x, 0);
  for (float x : obs.occupancy) EXPECT_EQ(x, 0);
}

// Along a random game of medium.json: matches the engine's OccupancyGrid and
// OccupancyAt, repeats exactly, stays in range, reuses its buffers.
TEST(ObserveTest, MatchesEngineGridsDeterministicAndBounded) {
  const auto program = Medium();
  const FeatureConfig c = CpuPreset().features();
  MMapGame game(program);
  std::mt19937 rng(7);
  Observation obs, again;
  Observe(game, c, &obs);
  const float* vector_data = obs.vector.data();
  const float* grid_data = obs.occupancy.data();
  int checked = 0;
  while (!game.IsTerminal()) {
    if (game.depth() % 97 == 0) {
      Observe(game, c, &obs);
      Observe(*game.Clone(), c, &again);
      EXPECT_EQ(obs.vector, again.vector);
      EXPECT_EQ(obs.occupancy, again.occupancy);
      const int32_t t = game.CurrentTime();
      const int32_t w = c.occupancy_window_steps();
      // The engine's grids, with cells shared by an alias group clamped.
      std::vector<float> grid =
          game.OccupancyGrid(t - w / 2, t - w / 2 + w - 1,
                             c.occupancy_time_bins(), c.occupancy_byte_bins());
      for (float& x : grid) x = std::min(x, 1.0f);
      ASSERT_EQ(obs.occupancy.size(), grid.size());
      for (size_t i = 0; i < grid.size(); ++i) {
        ASSERT_NEAR(obs.occupancy[i], grid[i], 1e-5) << i;
      }
      std::vector<float> at = game.OccupancyAt(t, c.target_occupancy_bins());
      for (float& x : at) x = std::min(x, 1.0f);
      for (size_t i = 0; i < at.size(); ++i) {
        ASSERT_NEAR(obs.vector[TargetOccupancyOffset(c) + i], at[i], 1e-5);
      }
      for (float x : obs.vector) {
        ASSERT_TRUE(std::isfinite(x));
        ASSERT_LE(std::abs(x), 1.0f + 1e-5f);
      }
      for (float x : obs.occupancy) {
        ASSERT_GE(x, -1e-5f);
        ASSERT_LE(x, 1.0f + 1e-5f);
      }
      ++checked;
    }
    game.ApplyAction(RandomLegal(game, &rng));
  }
  EXPECT_GT(checked, 10);
  EXPECT_EQ(obs.vector.data(), vector_data);  // no reallocation
  EXPECT_EQ(obs.occupancy.data(), grid_data);
}

// Not a pass/fail test: prints Observe()'s cost per call on medium.json.
TEST(ObserveBench, MediumPerCall) {
  const auto program = Medium();
  for (const MuZeroConfig& preset : {CpuPreset(), PaperPreset()}) {
    const FeatureConfig& c = preset.features();
    std::vector<MMapGame> states;
    MMapGame game(program);
    std::mt19937 rng(1);
    while (!game.IsTerminal()) {
      if (game.depth() % 10 == 0) states.push_back(game);
      game.ApplyAction(RandomLegal(game, &rng));
    }
    Observation obs;
    Observe(states[0], c, &obs);
    const int kRounds = 5;
    const auto start = std::chrono::steady_clock::now();
    double sink = 0;
    for (int r = 0; r < kRounds; ++r) {
      for (const MMapGame& s : states) {
        Observe(s, c, &obs);
        sink += obs.vector[0];
      }
    }
    const double us = std::chrono::duration<double, std::micro>(
                          std::chrono::steady_clock::now() - start)
                          .count() /
                      (kRounds * states.size());
    std::printf(
        "Observe() on medium.json, %s preset (%dx%d grid): %.2f us/call "
        "over %zu states (sink %g)\n",
        preset.preset().c_str(), c.occupancy_time_bins(),
        c.occupancy_byte_bins(), us, states.size(), sink);
  }
}

}  // namespace
}  // namespace mmapzero::features
