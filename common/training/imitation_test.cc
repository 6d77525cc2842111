// Imitation pretraining (imitation.h): a fresh network trained on the
// heuristic's plans of two programs agrees with them far more often than
// before, the same for a seed; bad input is refused naming the program.
#include "common/training/imitation.h"

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "common/features/config_presets.h"
#include "common/game/program.h"
#include "common/model/compute_threads.h"
#include "common/model/networks.h"
#include "common/solvers/solver.h"
#include "common/workload/example_program_for_tests.h"
#include "common/workload/generator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::training {
namespace {

using ::testing::HasSubstr;

MuZeroConfig SmallCpu() {
  absl::StatusOr<MuZeroConfig> config = features::PresetByName("cpu");
  EXPECT_TRUE(config.ok()) << config.status();
  config->mutable_training()->set_batch_size(64);
  // As `mmapctl imitate` trains (TrainingConfig.value_loss_weight).
  config->mutable_training()->set_value_loss_weight(0.1);
  config->mutable_training()->set_reward_loss_weight(0.1);
  return *config;
}

ImitationExample HeuristicExample(
    const std::string& name, std::shared_ptr<const game::Program> program) {
  absl::StatusOr<std::unique_ptr<solvers::Solver>> heuristic =
      solvers::MakeSolver("heuristic", {});
  EXPECT_TRUE(heuristic.ok()) << heuristic.status();
  absl::StatusOr<Solution> plan =
      (*heuristic)->Solve(program, solvers::SolverBudget{});
  EXPECT_TRUE(plan.ok()) << plan.status();
  return {.name = name, .program = std::move(program), .solution = *plan};
}

std::vector<ImitationExample> TwoPrograms() {
  GeneratorOptions options;
  options.family = ModelFamily::kTransformer;
  options.target_buffers = 300;
  options.seed = 7;
  absl::StatusOr<Workload> workload = GenerateWorkload(options);
  EXPECT_TRUE(workload.ok()) << workload.status();
  absl::StatusOr<std::shared_ptr<const game::Program>> generated =
      game::Program::Create(*workload);
  EXPECT_TRUE(generated.ok()) << generated.status();
  return {HeuristicExample("transformer-300", *generated),
          HeuristicExample("small example", SmallExampleProgram())};
}

struct Trained {
  ImitationResult result;
  model::MuZeroNetwork network;
};

Trained Train(const std::vector<ImitationExample>& examples, int64_t steps) {
  const MuZeroConfig config = SmallCpu();
  torch::manual_seed(1);
  absl::StatusOr<model::MuZeroNetwork> network = model::CreateNetwork(
      config.network(), model::ShapeOf(config.features()), torch::kCPU);
  EXPECT_TRUE(network.ok()) << network.status();
  absl::StatusOr<ImitationResult> result =
      Imitate(examples, config, *network, {.steps = steps, .seed = 3});
  EXPECT_TRUE(result.ok()) << result.status();
  return {*std::move(result), *network};
}

TEST(ImitationTest, TrainingMakesGreedyPlayAgreeWithThePlans) {
  model::SetComputeThreads(1);
  const std::vector<ImitationExample> examples = TwoPrograms();
  std::vector<ImitationProgress> reported;
  const MuZeroConfig config = SmallCpu();
  torch::manual_seed(1);
  absl::StatusOr<model::MuZeroNetwork> network = model::CreateNetwork(
      config.network(), model::ShapeOf(config.features()), torch::kCPU);
  ASSERT_TRUE(network.ok());
  absl::StatusOr<ImitationResult> result =
      Imitate(examples, config, *network,
              {.steps = 200,
               .seed = 3,
               .report_every = 50,
               .on_progress = [&](const ImitationProgress& p) {
                 reported.push_back(p);
               }});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->before.size(), 2u);
  ASSERT_EQ(result->after.size(), 2u);
  EXPECT_GT(result->positions, 300);
  // The generated program's decisions, by far the most: an untrained
  // network agrees by chance, a trained one mostly.
  EXPECT_EQ(result->after[0].name, "transformer-300");
  EXPECT_GT(result->after[0].decisions, 100);
  EXPECT_GT(result->after[0].agreement, result->before[0].agreement + 0.2)
      << result->before[0].agreement << " -> " << result->after[0].agreement;
  EXPECT_GT(result->after[0].agreement, 0.9);
  ASSERT_EQ(reported.size(), 4u);
  EXPECT_EQ(reported.back().step, 200);
  EXPECT_LT(reported.back().policy_loss, reported.front().policy_loss);

  // The same seed, the same network.
  const Trained again = Train(examples, 200);
  EXPECT_EQ(again.result.after[0].agreement, result->after[0].agreement);
}

TEST(ImitationTest, RefusesNothingToImitateAndPlansThatDoNotReplay) {
  model::SetComputeThreads(1);
  const MuZeroConfig config = SmallCpu();
  absl::StatusOr<model::MuZeroNetwork> network = model::CreateNetwork(
      config.network(), model::ShapeOf(config.features()), torch::kCPU);
  ASSERT_TRUE(network.ok());
  absl::StatusOr<ImitationResult> none = Imitate({}, config, *network, {});
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);

  std::vector<ImitationExample> examples = TwoPrograms();
  examples[1].solution.clear_decisions();  // a plan of no decisions
  absl::StatusOr<ImitationResult> broken =
      Imitate(examples, config, *network, {.steps = 1});
  EXPECT_EQ(broken.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(broken.status().message(), HasSubstr("small example"));
  EXPECT_THAT(broken.status().message(), HasSubstr("has no decision"));
}

}  // namespace
}  // namespace mmapzero::training
