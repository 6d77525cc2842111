// The `muzero` solver: registered by name, settings checked, and with an
// evaluation budget a valid solution at least as good as the heuristic's.
#include "common/model/muzero_solver.h"

#include <torch/torch.h>

#include <algorithm>
#include <memory>
#include <string>

#include "common/game/program.h"
#include "common/model/register_model_solvers.h"
#include "common/validate/validator.h"
#include "common/workload/proto_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::model {
namespace {

TEST(MuZeroSolverTest, RegisteredByExplicitCall) {
  RegisterModelSolvers();
  RegisterModelSolvers();  // idempotent
  const auto names = solvers::SolverNames();
  EXPECT_EQ(std::count(names.begin(), names.end(), "muzero"), 1);
  auto solver = solvers::MakeSolver("muzero", {{"log", "0"}});
  ASSERT_TRUE(solver.ok()) << solver.status();
  EXPECT_EQ((*solver)->name(), "muzero");
}

TEST(MuZeroSolverTest, RejectsBadSettings) {
  EXPECT_THAT(MuZeroSolver::Create({{"bogus", "1"}}).status().message(),
              ::testing::HasSubstr("bogus"));
  EXPECT_THAT(
      MuZeroSolver::Create({{"search.nonsense", "1"}}).status().message(),
      ::testing::HasSubstr("nonsense"));
  EXPECT_FALSE(MuZeroSolver::Create({{"config", "no-such-preset"}}).ok());
  auto solver = MuZeroSolver::Create({{"search.simulations", "5"}});
  ASSERT_TRUE(solver.ok()) << solver.status();
  EXPECT_EQ((*solver)->config().search().simulations(), 5);
}

TEST(MuZeroSolverTest, ValidAndAtLeastAsGoodAsTheHeuristic) {
  torch::set_num_threads(1);
  auto workload = ReadWorkload(MMAPZERO_SOURCE_DIR "/examples/small.json");
  ASSERT_TRUE(workload.ok()) << workload.status();
  auto program = game::Program::Create(*workload);
  ASSERT_TRUE(program.ok()) << program.status();

  solvers::SolverBudget budget;
  budget.wall_time = absl::Seconds(60);
  budget.max_evaluations = 6;
  budget.threads = 1;
  budget.seed = 3;
  int reports = 0;
  budget.on_progress = [&reports](const solvers::SolverProgress& progress) {
    ++reports;
    EXPECT_LE(progress.evaluations, 6);
  };
  auto heuristic = solvers::MakeSolver("heuristic", {});
  ASSERT_TRUE(heuristic.ok());
  auto heuristic_solution = (*heuristic)->Solve(*program, budget);
  ASSERT_TRUE(heuristic_solution.ok()) << heuristic_solution.status();

  auto solver = MuZeroSolver::Create(
      {{"log", "0"}, {"search.simulations", "4"}, {"search.batch_games", "4"}});
  ASSERT_TRUE(solver.ok()) << solver.status();
  auto solution = (*solver)->Solve(*program, budget);
  ASSERT_TRUE(solution.ok()) << solution.status();
  EXPECT_GE(std::stoi(solution->solver().settings().at("self_play_games")), 1);
  EXPECT_TRUE(validate::ValidateSolution(*workload, *solution).ok);
  EXPECT_GE(solution->normalised_return(),
            heuristic_solution->normalised_return());
  EXPECT_EQ(solution->solver().name(), "muzero");
  const auto& settings = solution->solver().settings();
  EXPECT_EQ(settings.at("seed"), "3");
  EXPECT_EQ(settings.at("preset"), "cpu");
  EXPECT_EQ(settings.at("evaluations"), "6");
  EXPECT_THAT(settings.at("learner"), ::testing::StartsWith("step "));
  EXPECT_GT(reports, 0);
}

}  // namespace
}  // namespace mmapzero::model
