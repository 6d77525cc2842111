// Every search baseline on the bundled examples: valid solutions, the same
// answer from the same seed (with one thread, and with two), and the
// searches improving on their first generation. Evaluation budgets, never
// wall time, keep these deterministic.
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/game/program.h"
#include "common/solvers/solver.h"
#include "common/validate/validator.h"
#include "common/workload/proto_io.h"
#include "gtest/gtest.h"

namespace mmapzero::solvers {
namespace {

struct Example {
  Workload workload;
  std::shared_ptr<const game::Program> program;
};

const Example& LoadExample(const std::string& name) {
  static auto* cache = new std::map<std::string, Example>;
  auto it = cache->find(name);
  if (it != cache->end()) return it->second;
  auto workload = ReadWorkload(std::string(MMAPZERO_SOURCE_DIR) + "/examples/" +
                               name + ".json");
  EXPECT_TRUE(workload.ok()) << workload.status();
  auto program = game::Program::Create(*workload);
  EXPECT_TRUE(program.ok()) << program.status();
  return (*cache)[name] = Example{*workload, *program};
}

Solution SolveOrDie(const std::string& solver_name, const Example& example,
                    int64_t evaluations, int threads, uint64_t seed,
                    const SolverSettings& settings = {}) {
  auto solver = MakeSolver(solver_name, settings);
  EXPECT_TRUE(solver.ok()) << solver.status();
  SolverBudget budget;
  budget.wall_time = absl::Seconds(60);
  budget.max_evaluations = evaluations;
  budget.threads = threads;
  budget.seed = seed;
  auto solution = (*solver)->Solve(example.program, budget);
  EXPECT_TRUE(solution.ok()) << solution.status();
  return *solution;
}

// The decisions only: wall seconds differ between runs.
std::string Decisions(const Solution& solution) {
  Solution copy = solution;
  copy.clear_solver();
  return copy.SerializeAsString();
}

class SearchSolverTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SearchSolverTest, ValidOnEveryExample) {
  for (const char* name : {"small", "medium"}) {
    const Example& example = LoadExample(name);
    const Solution solution = SolveOrDie(GetParam(), example, 80, 2, 7);
    const validate::ValidationReport report =
        validate::ValidateSolution(example.workload, solution);
    ASSERT_TRUE(report.ok) << name << ": " << report.violations[0].rule << ": "
                           << report.violations[0].message;
    EXPECT_TRUE(report.warnings.empty()) << name;
    EXPECT_NEAR(report.return_us, solution.return_us(),
                1e-6 * std::max(1.0, solution.return_us()));
    EXPECT_EQ(solution.solver().name(), GetParam());
    EXPECT_EQ(solution.solver().settings().at("seed"), "7");
    EXPECT_LE(std::stoll(solution.solver().settings().at("evaluations")), 80);
  }
}

TEST_P(SearchSolverTest, ReproducibleFromSeedWithOneThread) {
  const Example& example = LoadExample("small");
  const Solution a = SolveOrDie(GetParam(), example, 150, 1, 3);
  const Solution b = SolveOrDie(GetParam(), example, 150, 1, 3);
  EXPECT_EQ(Decisions(a), Decisions(b));
  EXPECT_EQ(a.return_us(), b.return_us());
}

TEST_P(SearchSolverTest, SameAnswerWithTwoThreads) {
  const Example& example = LoadExample("small");
  const Solution one = SolveOrDie(GetParam(), example, 150, 1, 5);
  const Solution two = SolveOrDie(GetParam(), example, 150, 2, 5);
  EXPECT_EQ(Decisions(one), Decisions(two));
}

TEST_P(SearchSolverTest, RejectsUnknownSetting) {
  auto solver = MakeSolver(GetParam(), {{"no_such_key", "1"}});
  ASSERT_FALSE(solver.ok());
  EXPECT_EQ(solver.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(solver.status().message().find("no_such_key=1"), std::string::npos)
      << solver.status();
}

// Asked to stop (the coordinator's seed solve of a cancelled job), a
// solver with a minute of wall time returns its best so far after the
// games it is playing: at most three generations here (counted, not
// timed: the sanitizer build is slow).
TEST_P(SearchSolverTest, StopsWhenAskedWithItsBestSoFar) {
  const Example& example = LoadExample("medium");
  auto solver = MakeSolver(GetParam(), {});
  ASSERT_TRUE(solver.ok()) << solver.status();
  SolverBudget budget;
  budget.wall_time = absl::Seconds(60);
  // solver.h: both callbacks run on the thread that called Solve().
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> called_elsewhere = false;
  int asked = 0;
  budget.stop_requested = [&] {
    if (std::this_thread::get_id() != caller) called_elsewhere = true;
    return ++asked > 3;
  };
  SolverProgress last;
  budget.on_progress = [&](const SolverProgress& p) {
    if (std::this_thread::get_id() != caller) called_elsewhere = true;
    last = p;
  };
  auto solution = (*solver)->Solve(example.program, budget);
  ASSERT_TRUE(solution.ok()) << solution.status();
  EXPECT_TRUE(validate::ValidateSolution(example.workload, *solution).ok);
  EXPECT_LE(asked, 4);
  EXPECT_LE(last.evaluations, 1000);  // generations of 33 to 64 games
  EXPECT_FALSE(called_elsewhere);
}

TEST(SearchSolverTest, TunedHeuristicStopsAfterItsFirstPlanWhenAsked) {
  auto solver = MakeSolver("heuristic", {{"tuned", "1"}});
  if (absl::IsUnimplemented(solver.status())) GTEST_SKIP() << solver.status();
  ASSERT_TRUE(solver.ok()) << solver.status();
  SolverBudget budget;
  budget.wall_time = absl::Seconds(60);
  budget.stop_requested = [] { return true; };
  SolverProgress last;
  budget.on_progress = [&last](const SolverProgress& p) { last = p; };
  auto solution = (*solver)->Solve(LoadExample("medium").program, budget);
  ASSERT_TRUE(solution.ok()) << solution.status();
  EXPECT_EQ(last.evaluations, 2);  // one plan, played with and without fill
}

INSTANTIATE_TEST_SUITE_P(AllBaselines, SearchSolverTest,
                         ::testing::Values("es", "brkga", "random", "drop-all",
                                           "portfolio", "race"),
                         [](const auto& param_info) {
                           std::string name = param_info.param;
                           std::erase(name, '-');
                           return name;
                         });

TEST(SearchSolverTest, DropAllReturnsNothing) {
  const Solution solution =
      SolveOrDie("drop-all", LoadExample("small"), 0, 1, 1);
  EXPECT_EQ(solution.return_us(), 0);
  for (const BufferDecision& d : solution.decisions()) {
    EXPECT_EQ(d.action(), DROP);
  }
}

TEST(SearchSolverTest, SeedsChangeTheRandomGames) {
  const Example& example = LoadExample("small");
  EXPECT_NE(Decisions(SolveOrDie("random", example, 20, 1, 1)),
            Decisions(SolveOrDie("random", example, 20, 1, 2)));
}

// The same seed replays the first generation exactly, so a short run's
// answer is the first generation's best.
TEST(SearchSolverTest, EvolutionImprovesOnFirstGeneration) {
  const Example& example = LoadExample("small");
  const SolverSettings settings = {{"population", "16"}};
  const Solution first = SolveOrDie("es", example, 17, 1, 11, settings);
  const Solution later = SolveOrDie("es", example, 17 * 15, 1, 11, settings);
  EXPECT_GT(later.normalised_return(), first.normalised_return());
}

TEST(SearchSolverTest, BrkgaImprovesOnFirstGeneration) {
  const Example& example = LoadExample("small");
  const SolverSettings settings = {{"population", "32"}};
  const Solution first = SolveOrDie("brkga", example, 32, 1, 11, settings);
  const Solution later =
      SolveOrDie("brkga", example, 32 + 26 * 10, 1, 11, settings);
  EXPECT_GT(later.normalised_return(), first.normalised_return());
}

// Every search starts where the agent's jobs start, from the heuristic's
// plan: its first generation already holds it, so one generation ends at
// or above the heuristic; start=none starts from the search's own greedy
// point and falls below it on these examples.
TEST(SearchSolverTest, SearchesStartFromTheHeuristic) {
  for (const char* name : {"small", "medium"}) {
    const Example& example = LoadExample(name);
    const double heuristic =
        SolveOrDie("heuristic", example, 0, 1, 1).normalised_return();
    for (const char* search : {"es", "brkga", "race"}) {
      const Solution solution = SolveOrDie(search, example, 2, 1, 3);
      EXPECT_GE(solution.normalised_return(), heuristic) << search << name;
      EXPECT_TRUE(validate::ValidateSolution(example.workload, solution).ok)
          << search << name;
    }
    EXPECT_LT(SolveOrDie("es", example, 2, 1, 3, {{"start", "none"}})
                  .normalised_return(),
              heuristic)
        << name;
  }
}

TEST(SearchSolverTest, RejectsBadSettings) {
  const std::vector<std::pair<std::string, SolverSettings>> bad = {
      {"es", {{"start", "random"}}},
      {"race", {{"start", "greedy"}}},
      {"es", {{"population", "7"}}},
      {"es", {{"population", "many"}}},
      {"es", {{"sigma", "-1"}}},
      {"es", {{"learning_rate", "nan"}}},
      {"brkga", {{"elite_fraction", "1.5"}}},
      {"brkga", {{"elite_fraction", "0.6"}, {"mutant_fraction", "0.6"}}},
      {"brkga", {{"elite_bias", "x"}}},
      {"random", {{"batch", "0"}}},
      {"portfolio", {{"population", "1"}}},
      {"race", {{"population", "64"}}},
  };
  for (const auto& [name, settings] : bad) {
    auto solver = MakeSolver(name, settings);
    ASSERT_FALSE(solver.ok()) << name << " " << settings.begin()->first;
    EXPECT_EQ(solver.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(solver.status().message().find(settings.begin()->first),
              std::string::npos)
        << solver.status();
  }
}

// The race runs ES and BRKGA side by side on one thread each, with half of
// the evaluations each: its answer is the better of the two run alone with
// those budgets (each is reproducible from its seed with one thread), and
// it says which won.
TEST(SearchSolverTest, RaceReturnsTheBetterOfEsAndBrkga) {
  for (const char* name : {"small", "medium"}) {
    const Example& example = LoadExample(name);
    const Solution es = SolveOrDie("es", example, 101, 1, 3);
    const Solution brkga = SolveOrDie("brkga", example, 100, 1, 3);
    const Solution race = SolveOrDie("race", example, 201, 2, 3);
    const bool es_wins = es.return_us() >= brkga.return_us();
    EXPECT_EQ(Decisions(race), Decisions(es_wins ? es : brkga)) << name;
    const auto& settings = race.solver().settings();
    EXPECT_EQ(settings.at("winner"), es_wins ? "es" : "brkga") << name;
    EXPECT_EQ(settings.at("es"), absl::StrCat(es.normalised_return()));
    EXPECT_EQ(settings.at("brkga"), absl::StrCat(brkga.normalised_return()));
    EXPECT_FALSE(settings.contains("population"));  // not the race's own
    EXPECT_EQ(std::stoll(settings.at("evaluations")),
              std::stoll(es.solver().settings().at("evaluations")) +
                  std::stoll(brkga.solver().settings().at("evaluations")));
  }
}

// With an evaluation limit of one only ES plays (BRKGA's half would be
// zero, which means no limit).
TEST(SearchSolverTest, RaceWithOneGameRunsEsAlone) {
  const Solution race = SolveOrDie("race", LoadExample("small"), 1, 2, 3);
  EXPECT_EQ(race.solver().settings().at("winner"), "es");
  EXPECT_FALSE(race.solver().settings().contains("brkga"));
  EXPECT_EQ(race.solver().settings().at("evaluations"), "1");
}

TEST(SearchSolverTest, RejectsBadBudget) {
  auto solver = MakeSolver("brkga", {});
  ASSERT_TRUE(solver.ok());
  SolverBudget budget;
  budget.threads = 0;
  auto solution = (*solver)->Solve(LoadExample("small").program, budget);
  EXPECT_EQ(solution.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SearchSolverTest, ReportsProgressAtTheEnd) {
  auto solver = MakeSolver("brkga", {});
  ASSERT_TRUE(solver.ok());
  SolverBudget budget;
  budget.max_evaluations = 100;
  std::vector<SolverProgress> reports;
  budget.on_progress = [&](const SolverProgress& p) { reports.push_back(p); };
  auto solution = (*solver)->Solve(LoadExample("small").program, budget);
  ASSERT_TRUE(solution.ok());
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports.back().evaluations, 100);
  EXPECT_DOUBLE_EQ(reports.back().best_normalised_return,
                   solution->normalised_return());
}

}  // namespace
}  // namespace mmapzero::solvers
