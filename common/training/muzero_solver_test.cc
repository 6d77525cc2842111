// The `muzero` solver: registered by name, settings checked, and with an
// evaluation budget a valid solution at least as good as the heuristic's;
// checkpoints (checkpoint=DIR) saved, resumed and refused for another
// workload or size; several actors adopting the learner's parameters.
#include "common/training/muzero_solver.h"

#include <torch/torch.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/agent/replay_buffer.h"
#include "common/game/program.h"
#include "common/model/compute_threads.h"
#include "common/model/networks.h"
#include "common/training/learner_checkpoint.h"
#include "common/training/register_training_solvers.h"
#include "common/training/self_play.h"
#include "common/validate/validator.h"
#include "common/workload/proto_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::training {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

TEST(MuZeroSolverTest, RegisteredByExplicitCall) {
  RegisterTrainingSolvers();
  RegisterTrainingSolvers();  // idempotent
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
  model::SetComputeThreads(1);
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
  EXPECT_GE(std::stoi(solution->solver().settings().at("games")), 1);
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

TEST(MuZeroSolverTest, SeedSolverPlaysFirstAndTheResultSaysWhatItReached) {
  EXPECT_THAT(
      MuZeroSolver::Create({{"seed_solver", "nope"}}).status().message(),
      ::testing::HasSubstr("'nope'"));
  EXPECT_FALSE(MuZeroSolver::Create({{"seed_solver", "muzero"}}).ok());
  EXPECT_FALSE(MuZeroSolver::Create({{"seed_share", "0.95"}}).ok());

  model::SetComputeThreads(1);
  auto workload = ReadWorkload(MMAPZERO_SOURCE_DIR "/examples/small.json");
  ASSERT_TRUE(workload.ok()) << workload.status();
  auto program = game::Program::Create(*workload);
  ASSERT_TRUE(program.ok()) << program.status();
  auto solver = MuZeroSolver::Create({{"log", "0"},
                                      {"seed_solver", "brkga"},
                                      {"seed_share", "0.5"},
                                      {"search.batch_games", "4"}});
  ASSERT_TRUE(solver.ok()) << solver.status();
  solvers::SolverBudget budget;
  budget.wall_time = absl::Seconds(3);
  budget.threads = 1;
  budget.seed = 3;
  auto solution = (*solver)->Solve(*program, budget);
  ASSERT_TRUE(solution.ok()) << solution.status();
  EXPECT_TRUE(validate::ValidateSolution(*workload, *solution).ok);
  const auto& settings = solution->solver().settings();
  EXPECT_EQ(settings.at("seed_solver"), "brkga");
  // BRKGA's result (the seed stage) is the floor, and both parts are told.
  EXPECT_GE(solution->normalised_return() + 1e-4,
            std::stod(settings.at("heuristic")));
  EXPECT_TRUE(settings.contains("self_play_best"));
}

// Small and quick: learner steps of 8 positions, 4 simulations per move,
// a checkpoint every 5 learner steps.
solvers::SolverSettings QuickSettings(const std::string& checkpoint) {
  solvers::SolverSettings settings = {{"log", "0"},
                                      {"search.simulations", "4"},
                                      {"search.batch_games", "4"},
                                      {"training.batch_size", "8"},
                                      {"training.unroll_steps", "2"},
                                      {"training.td_steps", "3"},
                                      {"training.checkpoint_interval", "5"}};
  if (!checkpoint.empty()) settings["checkpoint"] = checkpoint;
  return settings;
}

solvers::SolverBudget WallBudget(double seconds, uint64_t seed) {
  solvers::SolverBudget budget;
  budget.wall_time = absl::Seconds(seconds);
  budget.threads = 1;
  budget.seed = seed;
  return budget;
}

class MuZeroCheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model::SetComputeThreads(1);
    RegisterTrainingSolvers();
    auto workload = ReadWorkload(MMAPZERO_SOURCE_DIR "/examples/small.json");
    ASSERT_TRUE(workload.ok()) << workload.status();
    workload_ = *workload;
    auto program = game::Program::Create(workload_);
    ASSERT_TRUE(program.ok()) << program.status();
    program_ = *program;
    dir_ =
        (fs::path(::testing::TempDir()) /
         absl::StrCat(
             "muzero_ckpt_",
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
            .string();
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  absl::StatusOr<Solution> Run(const solvers::SolverSettings& settings,
                               const solvers::SolverBudget& budget) {
    return Run(program_, settings, budget);
  }
  absl::StatusOr<Solution> Run(
      const std::shared_ptr<const game::Program>& program,
      const solvers::SolverSettings& settings,
      const solvers::SolverBudget& budget) {
    auto solver = MuZeroSolver::Create(settings);
    if (!solver.ok()) return solver.status();
    return (*solver)->Solve(program, budget);
  }

  // The learner checkpoint in dir_: its step and replay size.
  void LoadSaved(int64_t* step, int64_t* replay_size) {
    auto solver = MuZeroSolver::Create(QuickSettings(""));
    ASSERT_TRUE(solver.ok());
    const MuZeroConfig& config = (*solver)->config();
    auto network = model::CreateNetwork(config.network(),
                                        model::ShapeOf(config.features()));
    ASSERT_TRUE(network.ok()) << network.status();
    torch::optim::Adam adam((*network)->parameters(),
                            torch::optim::AdamOptions(1e-3));
    agent::ReplayBuffer replay(config.training().replay_size(), 1);
    const absl::Status loaded =
        LoadLearnerCheckpoint(dir_ + "/learner", *network, adam, step, &replay);
    ASSERT_TRUE(loaded.ok()) << loaded;
    *replay_size = replay.size();
  }

  // Every file under dir_, by path, with its bytes.
  std::map<std::string, std::string> Files() const {
    std::map<std::string, std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(dir_)) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::ostringstream bytes;
      bytes << in.rdbuf();
      files[entry.path().string()] = bytes.str();
    }
    return files;
  }

  Workload workload_;
  std::shared_ptr<const game::Program> program_;
  std::string dir_;
};

TEST_F(MuZeroCheckpointTest, RunWritesALoadableCheckpoint) {
  auto solution = Run(QuickSettings(dir_), WallBudget(3, 5));
  ASSERT_TRUE(solution.ok()) << solution.status();
  const auto& settings = solution->solver().settings();
  EXPECT_EQ(settings.at("checkpoint"), dir_);
  EXPECT_EQ(settings.at("resumed_step"), "none");
  EXPECT_EQ(settings.count("checkpoint_error"), 0u)
      << settings.at("checkpoint_error");

  int64_t step = -1;
  int64_t replay_size = -1;
  LoadSaved(&step, &replay_size);
  EXPECT_GT(step, 0);
  EXPECT_GT(replay_size, 0);
  EXPECT_THAT(settings.at("learner"),
              ::testing::StartsWith(absl::StrCat("step ", step, ",")));

  Solution best;
  ASSERT_TRUE(ReadProtoFile(dir_ + "/best.json", &best).ok());
  EXPECT_TRUE(validate::ValidateSolution(workload_, best).ok);
  EXPECT_DOUBLE_EQ(best.normalised_return(), solution->normalised_return());
  std::ifstream run(dir_ + "/run.txt");
  std::stringstream text;
  text << run.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr(absl::StrCat("\nstep ", step, "\n")));
  EXPECT_THAT(text.str(),
              HasSubstr(absl::StrCat("\ngames ", settings.at("games"),
                                     "\n")));
}

TEST_F(MuZeroCheckpointTest, SecondRunResumesWhereTheFirstStopped) {
  auto first = Run(QuickSettings(dir_), WallBudget(3, 5));
  ASSERT_TRUE(first.ok()) << first.status();
  int64_t saved_step = -1;
  int64_t saved_replay = -1;
  LoadSaved(&saved_step, &saved_replay);
  ASSERT_GT(saved_step, 0);

  solvers::SolverSettings settings = QuickSettings(dir_);
  settings["log"] = "1";
  ::testing::internal::CaptureStderr();
  auto second = Run(settings, WallBudget(3, 5));
  const std::string log = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_THAT(log,
              HasSubstr(absl::StrCat("muzero: resumed from ", dir_,
                                     " at learner step ", saved_step, " (",
                                     saved_replay, " replay games, best ")));
  const auto& resumed = second->solver().settings();
  EXPECT_EQ(resumed.at("resumed_step"), absl::StrCat(saved_step));
  EXPECT_EQ(resumed.at("resumed_replay"), absl::StrCat(saved_replay));
  EXPECT_EQ(resumed.at("resumed_games"),
            first->solver().settings().at("games"));
  EXPECT_GE(second->normalised_return(), first->normalised_return());

  int64_t final_step = -1;
  int64_t final_replay = -1;
  LoadSaved(&final_step, &final_replay);
  EXPECT_GE(final_step, saved_step);
  EXPECT_GE(final_replay, saved_replay);
  EXPECT_THAT(resumed.at("learner"),
              ::testing::StartsWith(absl::StrCat("step ", final_step, ",")));
}

TEST_F(MuZeroCheckpointTest, MismatchIsAnErrorNamingTheDirAndChangesNothing) {
  const solvers::SolverBudget budget = WallBudget(2, 5);
  ASSERT_TRUE(Run(QuickSettings(dir_), budget).ok());
  const std::map<std::string, std::string> before = Files();
  ASSERT_TRUE(before.count(dir_ + "/run.txt"));

  Workload other = workload_;  // same name, more fast memory
  other.set_memory_size(workload_.memory_size() * 2);
  auto other_program = game::Program::Create(other);
  ASSERT_TRUE(other_program.ok()) << other_program.status();
  auto workload_mismatch = Run(*other_program, QuickSettings(dir_), budget);
  ASSERT_FALSE(workload_mismatch.ok());
  EXPECT_EQ(workload_mismatch.status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(workload_mismatch.status().message(), HasSubstr(dir_));
  EXPECT_THAT(workload_mismatch.status().message(), HasSubstr("fingerprint"));

  solvers::SolverSettings bigger = QuickSettings(dir_);
  bigger["network.mlp_hidden"] = "24";
  auto size_mismatch = Run(bigger, budget);
  ASSERT_FALSE(size_mismatch.ok());
  EXPECT_THAT(size_mismatch.status().message(), HasSubstr(dir_));
  EXPECT_THAT(size_mismatch.status().message(),
              HasSubstr("network.mlp_hidden"));

  EXPECT_TRUE(Files() == before) << "the checkpoint changed";
}

TEST_F(MuZeroCheckpointTest, EveryActorAdoptsPublishedParameters) {
  solvers::SolverSettings settings = QuickSettings("");
  settings["actors"] = "2";
  auto solution = Run(settings, WallBudget(4, 7));
  ASSERT_TRUE(solution.ok()) << solution.status();
  const std::vector<std::string> versions =
      absl::StrSplit(solution->solver().settings().at("actor_versions"), ',');
  ASSERT_EQ(versions.size(), 2u);
  for (const std::string& version : versions) {
    EXPECT_GT(std::stoll(version), 0) << "actor_versions " << version;
  }
}

}  // namespace
}  // namespace mmapzero::training
