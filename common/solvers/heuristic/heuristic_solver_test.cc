// The heuristic end to end: its solutions validate, it beats random play on
// the examples and greedy-by-benefit on at least 9 of the 12 generated
// workloads, the tuned variant never does worse than the default, and its
// settings are checked.
#include "common/solvers/heuristic/heuristic_solver.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/game/mmap_game.h"
#include "common/solvers/greedy_benefit_policy.h"
#include "common/solvers/heuristic/heuristic_planner.h"
#include "common/solvers/heuristic/memory_boundedness.h"
#include "common/solvers/policy.h"
#include "common/solvers/random_policy.h"
#include "common/validate/validator.h"
#include "common/workload/generator.h"
#include "common/workload/proto_io.h"
#include "common/workload/workload_limits.h"
#include "gtest/gtest.h"

namespace mmapzero::solvers {
namespace {

std::shared_ptr<const game::Program> Compile(const Workload& workload) {
  auto program = game::Program::Create(workload);
  EXPECT_TRUE(program.ok()) << program.status();
  return program.ok() ? *program : nullptr;
}

Solution SolveHeuristic(const std::shared_ptr<const game::Program>& program,
                        const SolverSettings& settings = {}) {
  auto solver = MakeSolver("heuristic", settings);
  EXPECT_TRUE(solver.ok()) << solver.status();
  SolverBudget budget;
  budget.wall_time = absl::Seconds(2);
  auto solution = (*solver)->Solve(program, budget);
  EXPECT_TRUE(solution.ok()) << solution.status();
  return *solution;
}

double PolicyReturn(const std::shared_ptr<const game::Program>& program,
                    Policy& policy) {
  game::MMapGame game(program);
  PlayOut(game, policy);
  return game.NormalisedReturn();
}

double BestRandom(const std::shared_ptr<const game::Program>& program,
                  int games) {
  double best = 0;
  for (int g = 0; g < games; ++g) {
    RandomPolicy policy(static_cast<uint64_t>(g) + 1);
    best = std::max(best, PolicyReturn(program, policy));
  }
  return best;
}

void ExpectValid(const Workload& workload, const Solution& solution) {
  const validate::ValidationReport report =
      validate::ValidateSolution(workload, solution);
  ASSERT_TRUE(report.ok) << workload.name() << ": " << report.violations[0].rule
                         << ": " << report.violations[0].message;
  EXPECT_TRUE(report.warnings.empty()) << report.warnings[0].message;
  EXPECT_NEAR(report.return_us, solution.return_us(),
              1e-9 * std::max(1.0, report.return_us));
}

// The default settings beat best-of-20 random play on both examples, and
// the tuned variant is at least as good as the default.
TEST(HeuristicSolverTest, ValidatesAndBeatsRandomOnExamples) {
  for (const char* name : {"small.json", "medium.json"}) {
    auto workload =
        ReadWorkload(std::string(MMAPZERO_SOURCE_DIR "/examples/") + name);
    ASSERT_TRUE(workload.ok()) << workload.status();
    auto program = Compile(*workload);
    ASSERT_NE(program, nullptr);
    const Solution solution = SolveHeuristic(program);
    ExpectValid(*workload, solution);
    EXPECT_EQ(solution.solver().name(), "heuristic");
    EXPECT_EQ(solution.solver().settings().at("max_ratio"), "10");
    const Solution tuned = SolveHeuristic(program, {{"tuned", "1"}});
    ExpectValid(*workload, tuned);
    const double random = BestRandom(program, 20);
    GreedyBenefitPolicy greedy;
    std::printf(
        "%-12s heuristic %.4f  tuned %.4f  greedy %.4f  "
        "best-of-20 random %.4f\n",
        name, solution.normalised_return(), tuned.normalised_return(),
        PolicyReturn(program, greedy), random);
    std::printf("  tuned picked preferred %s max %s capacity %s\n",
                tuned.solver().settings().at("preferred_ratio").c_str(),
                tuned.solver().settings().at("max_ratio").c_str(),
                tuned.solver().settings().at("capacity_fraction").c_str());
    EXPECT_GT(solution.normalised_return(), random) << name;
    EXPECT_GE(tuned.normalised_return(), solution.normalised_return()) << name;
  }
}

// At the largest magnitudes CheckWorkload accepts (workload_limits.h), the
// engine's sizes, offsets and alignments stay inside int64: the heuristic
// ends, and its plan validates. Past them, an alignment near 2^62 wrapped
// the allocator's align-up negative and the heuristic never returned.
TEST(HeuristicSolverTest, EndsAndValidatesAtTheLargestMagnitudes) {
  Workload workload;
  workload.set_name("limits");
  workload.set_memory_size(kMaxBytes);
  workload.set_alignment(kMaxBytes / 4);
  for (int t = 0; t < 6; ++t) workload.add_instructions()->set_supply_us(1.0);
  for (int i = 0; i < 6; ++i) {
    Buffer* buffer = workload.add_buffers();
    buffer->set_id(i);
    buffer->set_size(i % 2 == 0 ? kMaxBytes / 4 - 1 : kMaxBytes);
    buffer->set_target_time(i);
    buffer->set_tensor_id(i);
    buffer->mutable_live_range()->set_start(0);
    buffer->mutable_live_range()->set_end(5);
    buffer->set_demand_us(0.5);
    buffer->set_benefit_us(2.0 + i);
  }
  auto program = Compile(workload);
  ASSERT_NE(program, nullptr);
  const Solution solution = SolveHeuristic(program);
  ExpectValid(workload, solution);
  EXPECT_GT(solution.return_us(), 0);
}

TEST(HeuristicSolverTest, IsDeterministic) {
  auto workload = ReadWorkload(MMAPZERO_SOURCE_DIR "/examples/small.json");
  ASSERT_TRUE(workload.ok());
  auto program = Compile(*workload);
  const Solution a = SolveHeuristic(program);
  const Solution b = SolveHeuristic(program);
  EXPECT_EQ(a.return_us(), b.return_us());
  ASSERT_EQ(a.decisions_size(), b.decisions_size());
  for (int i = 0; i < a.decisions_size(); ++i) {
    EXPECT_EQ(a.decisions(i).action(), b.decisions(i).action());
  }
}

struct Case {
  ModelFamily family;
  ProgramMode mode;
  int buffers;
  uint64_t seed;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  uint64_t seed = 3;
  for (ModelFamily family : {ModelFamily::kMlp, ModelFamily::kCnn,
                             ModelFamily::kTransformer, ModelFamily::kLstm}) {
    for (ProgramMode mode : {ProgramMode::kTraining, ProgramMode::kInference}) {
      cases.push_back({family, mode, 600, seed++});
    }
  }
  for (ModelFamily family : {ModelFamily::kMlp, ModelFamily::kCnn,
                             ModelFamily::kTransformer, ModelFamily::kLstm}) {
    cases.push_back({family, ProgramMode::kTraining, 1500, seed++});
  }
  return cases;
}

TEST(HeuristicSolverTest, ValidatesAndBeatsGreedyOn9Of12GeneratedWorkloads) {
  int wins = 0, total = 0;
  std::printf("%-32s %9s %9s %9s %9s\n", "workload", "heuristic", "tuned",
              "greedy", "random20");
  for (const Case& c : Cases()) {
    GeneratorOptions options;
    options.family = c.family;
    options.mode = c.mode;
    options.target_buffers = c.buffers;
    options.seed = c.seed;
    auto workload = GenerateWorkload(options);
    ASSERT_TRUE(workload.ok()) << workload.status();
    auto program = Compile(*workload);
    ASSERT_NE(program, nullptr);
    const Solution heuristic = SolveHeuristic(program);
    ExpectValid(*workload, heuristic);
    const Solution tuned = SolveHeuristic(program, {{"tuned", "1"}});
    ExpectValid(*workload, tuned);
    EXPECT_GE(tuned.normalised_return(), heuristic.normalised_return())
        << workload->name();
    GreedyBenefitPolicy greedy;
    const double greedy_return = PolicyReturn(program, greedy);
    const double random = BestRandom(program, 20);
    std::printf("%-32s %9.4f %9.4f %9.4f %9.4f  (tuned: %s/%s/%s)\n",
                workload->name().c_str(), heuristic.normalised_return(),
                tuned.normalised_return(), greedy_return, random,
                tuned.solver().settings().at("preferred_ratio").c_str(),
                tuned.solver().settings().at("max_ratio").c_str(),
                tuned.solver().settings().at("capacity_fraction").c_str());
    wins += heuristic.normalised_return() > greedy_return ? 1 : 0;
    ++total;
  }
  std::printf("heuristic beats greedy-by-benefit on %d of %d\n", wins, total);
  EXPECT_EQ(total, 12);
  EXPECT_GE(wins, 9);
}

TEST(HeuristicSolverTest, RejectsUnknownAndBadSettings) {
  auto unknown = MakeSolver("heuristic", {{"population", "4"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("population"),
            absl::string_view::npos);
  EXPECT_FALSE(MakeSolver("heuristic", {{"max_ratio", "x"}}).ok());
  EXPECT_FALSE(MakeSolver("heuristic", {{"min_ratio", "20"}}).ok());
  EXPECT_FALSE(MakeSolver("heuristic", {{"tuned", "2"}}).ok());
  auto tuned = MakeSolver("heuristic", {{"tuned", "1"}, {"max_ratio", "20"}});
  ASSERT_TRUE(tuned.ok()) << tuned.status();
  EXPECT_EQ((*tuned)->name(), "heuristic-tuned");
}

// A generated 3,000-buffer transformer (seed 1), compiled; null on error.
std::shared_ptr<const game::Program> Transformer3000() {
  GeneratorOptions options;
  options.family = ModelFamily::kTransformer;
  options.target_buffers = 3000;
  options.seed = 1;
  auto workload = GenerateWorkload(options);
  EXPECT_TRUE(workload.ok()) << workload.status();
  return workload.ok() ? Compile(*workload) : nullptr;
}

// Abandoning is asked inside the plan and the game, not only between
// candidates: abandoned at its 3rd question (during the first plan), the
// heuristic answers Cancelled having asked no more.
TEST(HeuristicSolverTest, AbandoningIsAskedInsideThePlanAndTheGame) {
  const std::shared_ptr<const game::Program> program = Transformer3000();
  ASSERT_NE(program, nullptr);
  auto solver = MakeSolver("heuristic", {});
  ASSERT_TRUE(solver.ok()) << solver.status();

  int asked = 0;
  SolverBudget budget;
  budget.wall_time = absl::Hours(1);
  budget.abandon_requested = [&asked] { return ++asked >= 3; };
  const absl::StatusOr<Solution> stopped = (*solver)->Solve(program, budget);
  EXPECT_EQ(stopped.status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(asked, 3);

  // Unstopped, a whole run asks all through its plans and games, not
  // once between its two candidates.
  asked = 0;
  budget.abandon_requested = [&asked] { return ++asked < 0; };
  const absl::StatusOr<Solution> whole = (*solver)->Solve(program, budget);
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_GT(asked, 8);
}

// The plan asks at every alias set, not every 256: one set's copies replay
// the copies planned after them, so on a 200,000-buffer program 256 sets
// took seconds to stop. Stopped at its 5th question, it asks no more.
TEST(HeuristicSolverTest, PlanningAsksAtEveryAliasSet) {
  const std::shared_ptr<const game::Program> program = Transformer3000();
  ASSERT_NE(program, nullptr);
  const size_t sets = BuildAliasSets(*program).size();
  ASSERT_GT(sets, 2 * kStopCheckInterval);

  int64_t asked = 0;
  const std::optional<MemoryPlan> whole = PlanMemorySpace(
      *program, PlannerOptions{}, [&asked] { return ++asked < 0; });
  ASSERT_TRUE(whole.has_value());
  EXPECT_GE(asked, static_cast<int64_t>(sets));

  asked = 0;
  EXPECT_FALSE(PlanMemorySpace(*program, PlannerOptions{}, [&asked] {
                 return ++asked >= 5;
               }).has_value());
  EXPECT_EQ(asked, 5);
}

}  // namespace
}  // namespace mmapzero::solvers
