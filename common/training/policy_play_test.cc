// The network's own play (policy_play.h) and `--solver policy`:
//  - one network plays programs of any size on any hardware profile: built
//    once for the `cpu` preset's features, it plays generated programs of
//    about 300 and 16,500 buffers on a TPU and a GPU profile to the end,
//    and every plan passes the independent validator; the observation's
//    hardware section tells the profiles apart;
//  - the policy solver plays one game with an untrained or a saved
//    network, refuses a network of another feature configuration naming
//    both hashes, and a missing file naming it;
//  - unless told otherwise it plays the shipped pretrained network, which
//    fits the cpu preset, is at most 5 MB and plays the example to a valid
//    plan; with a few simulations a decision it looks ahead, reproducibly.
#include "common/training/policy_play.h"

#include <torch/torch.h>

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/features/config_presets.h"
#include "common/features/feature_extractor.h"
#include "common/features/feature_hash.h"
#include "common/game/program.h"
#include "common/model/compute_threads.h"
#include "common/model/network_checkpoint.h"
#include "common/model/network_evaluator.h"
#include "common/model/networks.h"
#include "common/solvers/solver.h"
#include "common/training/default_network.h"
#include "common/training/policy_solver.h"
#include "common/training/register_training_solvers.h"
#include "common/validate/validator.h"
#include "common/workload/example_program_for_tests.h"
#include "common/workload/generator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::training {
namespace {

using ::testing::HasSubstr;

MuZeroConfig Cpu() {
  absl::StatusOr<MuZeroConfig> config = features::PresetByName("cpu");
  EXPECT_TRUE(config.ok()) << config.status();
  return *config;
}

TEST(AnyProgramTest, OneNetworkPlaysSmallAndLargeProgramsOnTwoProfiles) {
  model::SetComputeThreads(1);
  const MuZeroConfig config = Cpu();
  const FeatureConfig& features = config.features();
  torch::manual_seed(1);
  absl::StatusOr<model::MuZeroNetwork> network = model::CreateNetwork(
      config.network(), model::ShapeOf(features), torch::kCPU);
  ASSERT_TRUE(network.ok()) << network.status();
  EXPECT_EQ((*network)->shape().feature_hash, features::FeatureHash(features));
  model::NetworkEvaluator evaluator(*network);

  std::vector<std::vector<float>> hardware_by_profile;
  for (const std::string profile : {"tpu-v4i", "gpu-h100"}) {
    std::vector<std::vector<float>> seen;
    for (const int target : {300, 16'500}) {
      SCOPED_TRACE(profile + " " + std::to_string(target));
      GeneratorOptions options;
      options.family = ModelFamily::kTransformer;
      options.target_buffers = target;
      options.seed = 7;
      options.hardware_profile = profile;
      absl::StatusOr<Workload> workload = GenerateWorkload(options);
      ASSERT_TRUE(workload.ok()) << workload.status();
      absl::StatusOr<std::shared_ptr<const game::Program>> program =
          game::Program::Create(*workload);
      ASSERT_TRUE(program.ok()) << program.status();
      const PolicyGame played = PlayPolicy(*program, features, evaluator);
      ASSERT_TRUE(played.game->IsTerminal());
      EXPECT_GE((*program)->num_buffers(), target * 9 / 10);
      EXPECT_LE((*program)->num_buffers(), target * 11 / 10);
      EXPECT_GE(played.decisions, (*program)->num_buffers());
      const validate::ValidationReport report =
          validate::ValidateSolution(*workload, played.game->ToSolution());
      EXPECT_TRUE(report.ok)
          << (report.violations.empty() ? std::string()
                                        : report.violations[0].message);
      EXPECT_GE(report.normalised_return, 0.0);
      EXPECT_LE(report.normalised_return, 1.0);
      ASSERT_EQ(played.hardware.size(),
                static_cast<size_t>(features::kHardwareFeatures));
      EXPECT_EQ(played.hardware[0], 1.0f) << "profile given";
      seen.push_back(played.hardware);
    }
    // The hardware section is the profile's, whatever the program's size.
    EXPECT_EQ(seen[0], seen[1]) << profile;
    hardware_by_profile.push_back(seen[0]);
  }
  // ...and tells the two profiles apart.
  EXPECT_NE(hardware_by_profile[0], hardware_by_profile[1]);
}

absl::StatusOr<Solution> SolveWithPolicy(
    const solvers::SolverSettings& settings) {
  absl::StatusOr<std::unique_ptr<PolicySolver>> solver =
      PolicySolver::Create(settings);
  if (!solver.ok()) return solver.status();
  return (*solver)->Solve(SmallExampleProgram(), solvers::SolverBudget{});
}

TEST(PolicySolverTest, PlaysOneGameWithAnUntrainedOrASavedNetwork) {
  model::SetComputeThreads(1);
  absl::StatusOr<Solution> untrained = SolveWithPolicy({{"network", "none"}});
  ASSERT_TRUE(untrained.ok()) << untrained.status();
  EXPECT_EQ(untrained->solver().name(), "policy");
  EXPECT_EQ(untrained->solver().settings().at("network"), "none");
  EXPECT_EQ(untrained->solver().settings().at("evaluations"), "1");
  EXPECT_TRUE(
      validate::ValidateSolution(SmallExampleProgram()->source(), *untrained)
          .ok);

  // A saved network plays as the network it was: the same game.
  const MuZeroConfig config = Cpu();
  torch::manual_seed(1);  // what --seed 1 (the default budget's) draws
  absl::StatusOr<model::MuZeroNetwork> network = model::CreateNetwork(
      config.network(), model::ShapeOf(config.features()), torch::kCPU);
  ASSERT_TRUE(network.ok());
  const std::string path = ::testing::TempDir() + "/policy_network.pt";
  ASSERT_TRUE(model::SaveCheckpoint(*network, path).ok());
  absl::StatusOr<Solution> saved = SolveWithPolicy({{"network", path}});
  ASSERT_TRUE(saved.ok()) << saved.status();
  EXPECT_EQ(saved->normalised_return(), untrained->normalised_return());
  EXPECT_EQ(saved->decisions_size(), untrained->decisions_size());
}

TEST(PolicySolverTest, PlaysTheShippedNetworkByDefault) {
  model::SetComputeThreads(1);
  EXPECT_GT(DefaultNetworkBytes().size(), 0u);
  EXPECT_LE(DefaultNetworkBytes().size(), 5u << 20);
  absl::StatusOr<Solution> shipped = SolveWithPolicy({});
  ASSERT_TRUE(shipped.ok()) << shipped.status();
  EXPECT_EQ(shipped->solver().settings().at("network"), "default");
  const validate::ValidationReport report =
      validate::ValidateSolution(SmallExampleProgram()->source(), *shipped);
  EXPECT_TRUE(report.ok);
  absl::StatusOr<Solution> named = SolveWithPolicy({{"network", "default"}});
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_EQ(named->decisions_size(), shipped->decisions_size());
  EXPECT_EQ(named->normalised_return(), shipped->normalised_return());

  // Another config's features: unasked, an untrained network plays; asked
  // for by name, the default is refused saying why.
  absl::StatusOr<Solution> other =
      SolveWithPolicy({{"features.next_buffers", "4"}});
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->solver().settings().at("network"), "none");
  absl::StatusOr<Solution> refused =
      SolveWithPolicy({{"features.next_buffers", "4"}, {"network", "default"}});
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition)
      << refused.status();
  EXPECT_THAT(refused.status().message(),
              HasSubstr("the default network (networks/default-cpu.pt"));
}

// A few simulations a decision: a look-ahead on the real game, still one
// game, reproducible for a seed, at least as good as greedy play here.
TEST(PolicySolverTest, AFewSimulationsADecisionLookAhead) {
  model::SetComputeThreads(1);
  absl::StatusOr<Solution> greedy = SolveWithPolicy({});
  ASSERT_TRUE(greedy.ok()) << greedy.status();
  absl::StatusOr<Solution> searched = SolveWithPolicy({{"simulations", "3"}});
  ASSERT_TRUE(searched.ok()) << searched.status();
  EXPECT_EQ(searched->solver().settings().at("simulations"), "3");
  EXPECT_EQ(searched->solver().settings().at("evaluations"), "1");
  EXPECT_TRUE(
      validate::ValidateSolution(SmallExampleProgram()->source(), *searched)
          .ok);
  absl::StatusOr<Solution> again = SolveWithPolicy({{"simulations", "3"}});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->normalised_return(), searched->normalised_return());
  EXPECT_FALSE(PolicySolver::Create({{"simulations", "65"}}).ok());
}

// Drawn games: the first of a lockstep batch is the greedy game itself,
// the others are complete valid plans, the same for a seed and not all
// alike; the solver's answer is the best of them, never below greedy.
TEST(PolicySolverTest, DrawnGamesBesideTheGreedyOne) {
  model::SetComputeThreads(1);
  const MuZeroConfig config = Cpu();
  torch::manual_seed(3);
  absl::StatusOr<model::MuZeroNetwork> network = model::CreateNetwork(
      config.network(), model::ShapeOf(config.features()), torch::kCPU);
  ASSERT_TRUE(network.ok());
  model::NetworkEvaluator evaluator(*network);
  const std::shared_ptr<const game::Program> program = SmallExampleProgram();
  const PolicyGame greedy = PlayPolicy(program, config.features(), evaluator);
  const std::vector<PolicyGame> drawn = PlaySampled(
      program, config.features(), evaluator, 6, /*first_greedy=*/true,
      /*temperature=*/1.0, /*seed=*/5);
  ASSERT_EQ(drawn.size(), 6u);
  EXPECT_EQ(drawn[0].game->ToSolution().SerializeAsString(),
            greedy.game->ToSolution().SerializeAsString());
  std::set<std::string> plans;
  for (const PolicyGame& one : drawn) {
    ASSERT_TRUE(one.game->IsTerminal());
    EXPECT_TRUE(
        validate::ValidateSolution(program->source(), one.game->ToSolution())
            .ok);
    plans.insert(one.game->ToSolution().SerializeAsString());
  }
  EXPECT_GT(plans.size(), 1u) << "an untrained policy draws different plans";
  const std::vector<PolicyGame> again =
      PlaySampled(program, config.features(), evaluator, 6, true, 1.0, 5);
  for (size_t i = 0; i < drawn.size(); ++i) {
    EXPECT_EQ(again[i].game->ToSolution().SerializeAsString(),
              drawn[i].game->ToSolution().SerializeAsString());
  }

  absl::StatusOr<Solution> plain = SolveWithPolicy({});
  ASSERT_TRUE(plain.ok()) << plain.status();
  absl::StatusOr<Solution> best =
      SolveWithPolicy({{"samples", "20"}, {"temperature", "0.5"}});
  ASSERT_TRUE(best.ok()) << best.status();
  EXPECT_GE(best->normalised_return(), plain->normalised_return());
  EXPECT_EQ(best->solver().settings().at("samples"), "20");
  EXPECT_EQ(best->solver().settings().at("evaluations"), "21");
  EXPECT_TRUE(
      validate::ValidateSolution(SmallExampleProgram()->source(), *best).ok);
  EXPECT_FALSE(
      PolicySolver::Create({{"samples", "3"}, {"simulations", "2"}}).ok());
  EXPECT_FALSE(PolicySolver::Create({{"temperature", "0"}}).ok());
}

TEST(PolicySolverTest, RefusesAnotherFeatureConfigAndMissingFiles) {
  model::SetComputeThreads(1);
  MuZeroConfig config = Cpu();
  config.mutable_features()->set_next_buffers(4);  // another hash
  absl::StatusOr<model::MuZeroNetwork> network = model::CreateNetwork(
      config.network(), model::ShapeOf(config.features()), torch::kCPU);
  ASSERT_TRUE(network.ok());
  const std::string path = ::testing::TempDir() + "/policy_other.pt";
  ASSERT_TRUE(model::SaveCheckpoint(*network, path).ok());
  absl::StatusOr<Solution> other = SolveWithPolicy({{"network", path}});
  EXPECT_EQ(other.status().code(), absl::StatusCode::kFailedPrecondition)
      << other.status();
  EXPECT_THAT(other.status().message(),
              HasSubstr(absl::StrCat(
                  "feature hash ", features::FeatureHash(config.features()))));
  EXPECT_THAT(other.status().message(), HasSubstr("config=cpu"));

  const std::string missing = ::testing::TempDir() + "/no_such_network.pt";
  std::filesystem::remove(missing);
  absl::StatusOr<Solution> absent = SolveWithPolicy({{"network", missing}});
  EXPECT_FALSE(absent.ok());
  EXPECT_THAT(absent.status().message(), HasSubstr(missing));

  EXPECT_FALSE(PolicySolver::Create({{"network", ""}}).ok());
  EXPECT_FALSE(PolicySolver::Create({{"beam", "3"}}).ok());
}

// The portfolio with policy_start=1: the network's play is one more
// candidate and BRKGA start, so the answer is at least as fast as the
// policy's and the settings say what it reached.
TEST(PolicySolverTest, IsOneMoreStartOfThePortfolio) {
  model::SetComputeThreads(1);
  RegisterTrainingSolvers();
  EXPECT_FALSE(solvers::MakeSolver("portfolio", {{"policy_start", "2"}}).ok());
  absl::StatusOr<std::unique_ptr<solvers::Solver>> portfolio =
      solvers::MakeSolver("portfolio", {{"policy_start", "1"}});
  ASSERT_TRUE(portfolio.ok()) << portfolio.status();
  solvers::SolverBudget budget;
  budget.wall_time = absl::Seconds(4);
  budget.max_evaluations = 400;
  absl::StatusOr<Solution> answer =
      (*portfolio)->Solve(SmallExampleProgram(), budget);
  ASSERT_TRUE(answer.ok()) << answer.status();
  const absl::StatusOr<Solution> policy = SolveWithPolicy({});
  ASSERT_TRUE(policy.ok());
  EXPECT_EQ(answer->solver().settings().at("policy"),
            absl::StrCat(policy->normalised_return()));
  EXPECT_GE(answer->normalised_return(), policy->normalised_return());
  EXPECT_TRUE(
      validate::ValidateSolution(SmallExampleProgram()->source(), *answer).ok);
  absl::StatusOr<std::unique_ptr<solvers::Solver>> plain =
      solvers::MakeSolver("portfolio", {});
  ASSERT_TRUE(plain.ok());
  absl::StatusOr<Solution> without =
      (*plain)->Solve(SmallExampleProgram(), budget);
  ASSERT_TRUE(without.ok());
  EXPECT_EQ(without->solver().settings().count("policy"), 0u);
}

}  // namespace
}  // namespace mmapzero::training
