// Golden losses: a fixed seed, one LibTorch thread, in process. Self-play
// fills a replay with games of examples/small.json, then the training loop
// (training_loop.h, over the replay in memory with reanalysis of a quarter
// of every batch) takes kSteps learner steps; the losses must equal those
// recorded (kGoldenLosses) within float tolerance. They were recorded with
// the learner that sampled its own replay, before the training loop was
// shared by the learner service and the in-process solver: the loop
// computes what it computed, and draws the same positions. A change that
// alters either fails here. Re-recorded once since, when the observation
// gained its hardware section (six more network inputs, so other initial
// weights): the first step's loss stayed 9.86597729. Self-play here starts
// from the heuristic's plan alone (no greedy-rule starts): the recorded
// games were played that way, and this test pins the loop, not the starts.
#include <torch/torch.h>

#include <memory>
#include <stop_token>
#include <vector>

#include "common/agent/replay_buffer.h"
#include "common/features/config_presets.h"
#include "common/model/compute_threads.h"
#include "common/model/networks.h"
#include "common/training/demonstrations.h"
#include "common/training/learner.h"
#include "common/training/reanalyser.h"
#include "common/training/replay_batch_source.h"
#include "common/training/self_play.h"
#include "common/training/training_loop.h"
#include "common/training/training_test_support.h"
#include "common/workload/example_program_for_tests.h"
#include "gtest/gtest.h"

namespace mmapzero::training {
namespace {

constexpr int kSteps = 12;
constexpr double kGoldenLosses[kSteps] = {
    9.86597729, 9.44351387, 9.61263180, 9.78084469, 9.95227718, 9.29651260,
    10.0582504, 9.63922310, 9.49844074, 9.65194130, 9.42108631, 9.42388058};

// The loss of every step.
class LossRecorder final : public TrainingObserver {
 public:
  void OnStep(const LearnerStats& stats, absl::Duration) override {
    losses.push_back(stats.total);
  }
  std::vector<double> losses;
};

MuZeroConfig GoldenConfig() {
  MuZeroConfig config = TinySizesConfig();
  SearchConfig* s = config.mutable_search();
  s->set_simulations(4);
  s->set_batch_games(2);
  s->set_best_start_rules(false);
  TrainingConfig* t = config.mutable_training();
  t->set_batch_size(8);
  t->set_unroll_steps(3);
  t->set_td_steps(4);
  t->set_reanalyse_fraction(0.25);
  t->set_demonstration_fraction(0);
  return config;
}

TEST(TrainingDeterminismTest, TheLoopTrainsAsTheRecordedLearnerDid) {
  model::SetComputeThreads(1);
  const MuZeroConfig config = GoldenConfig();
  const auto program = SmallExampleProgram();
  ASSERT_NE(program, nullptr);
  torch::manual_seed(7);
  auto actor_network = model::CreateNetwork(
      config.network(), model::ShapeOf(config.features()), torch::kCPU);
  ASSERT_TRUE(actor_network.ok());
  agent::ReplayBuffer replay(config.training().replay_size(), /*seed=*/11);
  SelfPlay::Options options{
      .config = config,
      .seed = 3,
      .game_options = {},
      .sink = [&replay](const game::MMapGame&, agent::Trajectory trajectory) {
        replay.Insert(std::move(trajectory));
      }};
  auto actor = SelfPlay::Create(program, *actor_network, options);
  ASSERT_TRUE(actor.ok()) << actor.status();
  (*actor)->PlayGames(6);

  torch::manual_seed(5);
  auto network = model::CreateNetwork(
      config.network(), model::ShapeOf(config.features()), torch::kCPU);
  ASSERT_TRUE(network.ok());
  auto reanalyser = Reanalyser::Create(config.search(), *network, &replay);
  ASSERT_TRUE(reanalyser.ok()) << reanalyser.status();
  auto learner =
      Learner::Create(config.training(), config.search().discount(), *network);
  ASSERT_TRUE(learner.ok()) << learner.status();
  ReplayBatchSource source(config.training(), &replay, reanalyser->get(),
                           /*first_batch=*/0);
  Demonstrations demonstrations(program, config, /*seed=*/1);
  LossRecorder recorder;
  TrainingLoop loop({.max_steps = kSteps}, learner->get(), &source,
                    &demonstrations, TrainingSinks{}, &recorder);
  loop.Run(std::stop_token());
  ASSERT_EQ(recorder.losses.size(), static_cast<size_t>(kSteps));
  for (int i = 0; i < kSteps; ++i) {
    EXPECT_NEAR(recorder.losses[i], kGoldenLosses[i], 1e-4) << "step " << i;
  }
  EXPECT_EQ(source.reanalysed(), 2 * kSteps);
  EXPECT_TRUE(loop.progress().finished);
}

}  // namespace
}  // namespace mmapzero::training
