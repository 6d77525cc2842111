// The optimality bound: never below a valid solution (property test over
// thousands of random games on generated programs of every family, the
// heuristic's and greedy play, real modules), equal to the optimum found by
// exhaustive search where the relaxation is tight (hand-worked programs),
// and exhaustive search itself where the program is small.
#include <cstdio>
#include <memory>
#include <string>

#include "common/bound/exact_optimum.h"
#include "common/bound/lp_bound.h"
#include "common/bound/optimality_bound.h"
#include "common/game/mmap_game.h"
#include "common/game/program.h"
#include "common/hlo/hlo_importer.h"
#include "common/solvers/greedy_benefit_policy.h"
#include "common/solvers/random_policy.h"
#include "common/solvers/solver.h"
#include "common/workload/generator.h"
#include "common/workload/hardware_profiles.h"
#include "common/workload/proto_io.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::bound {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<const game::Program> Compile(const Workload& workload) {
  absl::StatusOr<std::shared_ptr<const game::Program>> program =
      game::Program::Create(workload);
  EXPECT_TRUE(program.ok()) << program.status();
  return program.ok() ? *program : nullptr;
}

double Play(const std::shared_ptr<const game::Program>& program,
            solvers::Policy& policy) {
  game::MMapGame game(program);
  solvers::PlayOut(game, policy);
  return game.Return();
}

// A static-only program: `sizes[i]` and `benefits[i]` for buffer i, an
// operand of instruction i (all alive from step 0), copy demand 1 us and
// supply `supply` per step, in `memory` bytes.
Workload Static(std::vector<int64_t> sizes, std::vector<double> benefits,
                int64_t memory, double supply) {
  Workload workload;
  workload.set_name("hand");
  workload.set_memory_size(memory);
  const int n = static_cast<int>(sizes.size());
  for (int t = 0; t <= n; ++t) workload.add_instructions()->set_supply_us(supply);
  for (int i = 0; i < n; ++i) {
    Buffer* buffer = workload.add_buffers();
    buffer->set_id(i);
    buffer->set_size(sizes[i]);
    buffer->set_target_time(i + 1);
    buffer->set_tensor_id(i);
    buffer->mutable_live_range()->set_start(0);
    buffer->mutable_live_range()->set_end(i + 1);
    buffer->set_demand_us(1.0);
    buffer->set_benefit_us(benefits[i]);
  }
  return workload;
}

// `workload` with steps [first, last] a loop of `trips` trips.
Workload Looped(Workload workload, int first, int last, int64_t trips) {
  Loop* loop = workload.add_loops();
  loop->set_first_step(first);
  loop->set_last_step(last);
  loop->set_trip_count(trips);
  return workload;
}

TEST(LpBoundTest, EqualsTheExhaustiveOptimumWhereTheRelaxationIsTight) {
  struct Case {
    const char* what;
    Workload workload;
    double optimum;
  } cases[] = {
      {"everything fits", Static({10, 20, 30}, {1, 2, 3}, 100, 1.0), 6},
      // Each copy holds the whole memory over [use - 1, use]: both meet at
      // step 1, so one at a time, the better one.
      {"one at a time", Static({100, 100}, {3, 5}, 100, 1.0), 5},
      // No supply: no copy; each is a first use, so no NoCopy either.
      {"no bandwidth", Static({10, 10}, {3, 5}, 100, 0.0), 0},
      // Too large for the memory.
      {"too large", Static({200, 10}, {9, 1}, 100, 1.0), 1},
      // Steps 1 and 2 a loop of 4 trips: a copy stays inside its run, so
      // only buffer 1 (at 2, copied over step 1) can be prefetched; it
      // saves its benefit on every trip.
      {"a loop", Looped(Static({10, 20, 30}, {1, 2, 3}, 100, 1.0), 1, 2, 4),
       4 * 2},
  };
  for (const Case& c : cases) {
    auto program = Compile(c.workload);
    ASSERT_NE(program, nullptr);
    const std::optional<ExactOptimum> exact = FindExactOptimum(program, 1000000);
    ASSERT_TRUE(exact.has_value()) << c.what;
    EXPECT_NEAR(exact->best.return_us(), c.optimum, 1e-9) << c.what;
    absl::StatusOr<LpBound> lp = SolveLpBound(c.workload);
    ASSERT_TRUE(lp.ok()) << c.what << ": " << lp.status();
    EXPECT_NEAR(lp->return_us, c.optimum, 1e-6) << c.what;
  }
}

// Thousands of random games, and greedy and heuristic play, on generated
// programs of every family and both modes: no valid solution above the
// bound; on the small ones the exhaustive optimum is below it too.
TEST(LpBoundTest, NoValidSolutionReturnsMore) {
  int games = 0;
  for (const ModelFamily family :
       {ModelFamily::kMlp, ModelFamily::kCnn, ModelFamily::kTransformer,
        ModelFamily::kLstm}) {
    for (const ProgramMode mode : {ProgramMode::kTraining, ProgramMode::kInference}) {
      for (uint64_t seed = 1; seed <= 3; ++seed) {
        GeneratorOptions options;
        options.family = family;
        options.mode = mode;
        options.target_buffers = 12 + 40 * static_cast<int>(seed - 1);
        options.seed = seed;
        absl::StatusOr<Workload> workload = GenerateWorkload(options);
        ASSERT_TRUE(workload.ok()) << workload.status();
        absl::StatusOr<LpBound> lp = SolveLpBound(*workload);
        ASSERT_TRUE(lp.ok()) << lp.status();
        auto program = Compile(*workload);
        ASSERT_NE(program, nullptr);
        for (uint64_t g = 0; g < 60; ++g, ++games) {
          solvers::RandomPolicy random(1000 * seed + g);
          EXPECT_LE(Play(program, random), lp->return_us) << workload->name();
        }
        solvers::GreedyBenefitPolicy greedy;
        EXPECT_LE(Play(program, greedy), lp->return_us) << workload->name();
        auto heuristic = solvers::MakeSolver("heuristic", {});
        ASSERT_TRUE(heuristic.ok());
        solvers::SolverBudget budget;
        budget.wall_time = absl::Seconds(1);
        absl::StatusOr<Solution> solution = (*heuristic)->Solve(program, budget);
        ASSERT_TRUE(solution.ok()) << solution.status();
        EXPECT_LE(solution->return_us(), lp->return_us) << workload->name();
        if (workload->buffers_size() <= 14) {
          const std::optional<ExactOptimum> exact =
              FindExactOptimum(program, 3000000);
          if (exact.has_value()) {
            EXPECT_LE(exact->best.return_us(), lp->return_us)
                << workload->name();
          }
        }
      }
    }
  }
  EXPECT_GE(games, 1440);
}

TEST(LpBoundTest, BoundsTheSolversOnAnExampleAndARealModule) {
  std::vector<Workload> workloads;
  for (const char* name : {"small.json"}) {
    absl::StatusOr<Workload> workload =
        ReadWorkload(std::string(MMAPZERO_SOURCE_DIR "/examples/") + name);
    ASSERT_TRUE(workload.ok()) << workload.status();
    workloads.push_back(*workload);
  }
  hlo::HloImportOptions options;
  absl::StatusOr<HardwareProfile> profile = ResolveHardwareProfile("tpu-v4i");
  ASSERT_TRUE(profile.ok());
  options.hardware = *profile;
  absl::StatusOr<hlo::HloImportResult> imported = hlo::ImportHloFile(
      MMAPZERO_SOURCE_DIR "/testdata/hlo/graphsage_tf.hlo", options);
  ASSERT_TRUE(imported.ok()) << imported.status();
  workloads.push_back(imported->workload);
  for (const Workload& workload : workloads) {
    absl::StatusOr<OptimalityBound> bound = ComputeBound(workload);
    ASSERT_TRUE(bound.ok()) << bound.status();
    EXPECT_FALSE(bound->exact);
    auto program = Compile(workload);
    ASSERT_NE(program, nullptr);
    for (const char* solver : {"heuristic", "es"}) {
      auto made = solvers::MakeSolver(solver, {});
      ASSERT_TRUE(made.ok());
      solvers::SolverBudget budget;
      budget.wall_time = absl::Seconds(1);
      budget.threads = 1;
      absl::StatusOr<Solution> solution = (*made)->Solve(program, budget);
      ASSERT_TRUE(solution.ok());
      EXPECT_LE(solution->normalised_return(), bound->normalised_return)
          << workload.name() << " " << solver;
      std::printf("%-28s %-9s %.4f  bound %.4f (%s, %.2f s)\n",
                  workload.name().c_str(), solver,
                  solution->normalised_return(), bound->normalised_return,
                  bound->details.c_str(), bound->seconds);
    }
  }
}

TEST(OptimalityBoundTest, SmallProgramsGetTheExactOptimumLargeOnesTheLp) {
  absl::StatusOr<OptimalityBound> small =
      ComputeBound(Static({100, 100}, {3, 5}, 100, 1.0));
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_TRUE(small->exact);
  EXPECT_EQ(small->method, "exhaustive search");
  EXPECT_NEAR(small->return_us, 5, 1e-9);
  EXPECT_NEAR(small->normalised_return, 5.0 / 8.0, 1e-9);

  GeneratorOptions options;
  options.target_buffers = 200;
  options.seed = 4;
  absl::StatusOr<Workload> large = GenerateWorkload(options);
  ASSERT_TRUE(large.ok());
  absl::StatusOr<OptimalityBound> bound = ComputeBound(*large);
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_FALSE(bound->exact);
  EXPECT_EQ(bound->method, "LP relaxation");
  EXPECT_GT(bound->normalised_return, 0);
  EXPECT_LE(bound->normalised_return, 1.0 + 1e-6);

  Workload bad = *large;
  bad.set_memory_size(-1);
  EXPECT_THAT(ComputeBound(bad).status().message(), HasSubstr("memory_size"));
}

}  // namespace
}  // namespace mmapzero::bound
