// `mmapctl export` and `import --mapping-out` against each other: a
// solution written into its module and read back from the module's text is
// the same solution (the same program, every action, the same simulated
// latency), on every real module of testdata/hlo the export supports, with
// the heuristic's solution and with BRKGA's; the overrides file parses and
// names the same decisions; bad input is refused.
#include "common/hlo/hlo_export.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/base/read_file.h"
#include "common/game/program.h"
#include "common/hlo/hlo_importer.h"
#include "common/hlo/hlo_mapping.h"
#include "common/hlo/hlo_test_util.h"
#include "common/solvers/solver.h"
#include "common/validate/latency_simulator.h"
#include "common/validate/validator.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "proto/msa_overrides.pb.h"

namespace mmapzero::hlo {
namespace {

using ::testing::HasSubstr;

const std::string kDir = MMAPZERO_SOURCE_DIR "/testdata/hlo";

HloImportOptions OptionsFor(const std::string& file) {
  HloImportOptions options = TestOptions();
  options.source_name = file;
  // Loops the modules do not count (bench/real_programs/modules.tsv).
  if (file == "gemma2-2b-generate_jax_infer_cpu.hlo") {
    options.trip_counts["while.14219"] = 31;
  } else if (file == "gemma3-4b-generate_jax_infer_cpu.hlo") {
    options.trip_counts["while.7"] = 100;
  } else if (file == "gemma4-2b-generate_jax_infer_gpu.hlo") {
    options.trip_counts["while.7"] = 41;
  }
  return options;
}

Solution Solve(const Workload& workload, const std::string& solver,
               int64_t evaluations) {
  auto program = game::Program::Create(workload);
  EXPECT_TRUE(program.ok()) << program.status();
  auto made = solvers::MakeSolver(solver, {});
  EXPECT_TRUE(made.ok()) << made.status();
  solvers::SolverBudget budget;
  budget.wall_time = absl::Seconds(60);
  budget.max_evaluations = evaluations;
  auto solution = (*made)->Solve(*program, budget);
  EXPECT_TRUE(solution.ok()) << solution.status();
  return *solution;
}

double Simulated(const Workload& workload, const Solution& solution) {
  auto simulated = validate::SimulateSolution(workload, solution);
  EXPECT_TRUE(simulated.ok()) << simulated.status();
  return simulated.ok() ? simulated->latency_us : -1;
}

// Exports `solution`, imports the written module with its placement and
// expects the same program and solution back.
void ExpectRoundTrip(const std::string& file, const std::string& text,
                     const Workload& workload, const Solution& solution,
                     HloExport* exported = nullptr) {
  absl::StatusOr<HloExport> out = ExportSolution(text, file, workload, solution);
  ASSERT_TRUE(out.ok()) << file << ": " << out.status();
  HloImportOptions options = OptionsFor(file);
  options.source_name = file + ".mapped.hlo";
  // The loops of the entry's own (those whose trip counts the modules
  // leave unstated) keep their names in the written module.
  for (const Loop& loop : workload.loops()) {
    if (loop.name().find('/') == std::string::npos) {
      options.trip_counts[loop.name()] = loop.trip_count();
    }
  }
  auto back = ImportHloModule(out->mapped_hlo, options);
  ASSERT_TRUE(back.ok()) << file << ": " << back.status();
  ASSERT_TRUE(CheckSameProgram(workload, (*back)->result.workload).ok())
      << file << ": " << CheckSameProgram(workload, (*back)->result.workload);
  auto mapped = SolutionFromMapping(workload, (*back)->result.mapping);
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  EXPECT_EQ(mapped->changed, 0) << file;
  const validate::ValidationReport report =
      validate::ValidateSolution(workload, mapped->solution);
  ASSERT_TRUE(report.ok) << file << ": "
                         << validate::FormatViolation(report.violations[0]);
  // Every decision the same, so every figure too.
  ASSERT_EQ(mapped->solution.decisions_size(), solution.decisions_size());
  for (int i = 0; i < solution.decisions_size(); ++i) {
    ASSERT_EQ(mapped->solution.decisions(i).action(),
              solution.decisions(i).action())
        << file << ": buffer " << solution.decisions(i).buffer_id();
  }
  const double latency = Simulated(workload, solution);
  EXPECT_NEAR(Simulated(workload, mapped->solution), latency, 1e-9 * latency)
      << file;
  EXPECT_NEAR(report.return_us, solution.return_us(),
              1e-9 * std::max(1.0, solution.return_us()))
      << file;
  if (exported != nullptr) *exported = *std::move(out);
}

std::vector<std::string> CorpusFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
    if (entry.path().extension() == ".hlo") {
      files.push_back(entry.path().filename().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

class HloExportCorpusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(HloExportCorpusTest, RoundTripsTheHeuristicsSolution) {
  const std::string& file = GetParam();
  auto text = ReadWholeFile(kDir + "/" + file);
  ASSERT_TRUE(text.ok()) << text.status();
  auto imported = ImportHloText(*text, OptionsFor(file));
  ASSERT_TRUE(imported.ok()) << imported.status();
  const Workload& workload = imported->workload;
  const Solution solution = Solve(workload, "heuristic", 0);
  ExpectRoundTrip(file, *text, workload, solution);
}

INSTANTIATE_TEST_SUITE_P(All, HloExportCorpusTest,
                         ::testing::ValuesIn(CorpusFiles()),
                         [](const auto& instance) {
                           return TestNameOfFile(instance.param);
                         });

TEST(HloExportTest, BrkgaSolutionsRoundTrip) {
  for (const char* file : {"graphsage_tf.hlo", "ssd_mobilenet_tf.hlo",
                           "llama31-70b-bf16_jax_train_gpu.hlo"}) {
    auto text = ReadWholeFile(kDir + "/" + file);
    ASSERT_TRUE(text.ok()) << text.status();
    auto imported = ImportHloText(*text, OptionsFor(file));
    ASSERT_TRUE(imported.ok()) << imported.status();
    const Solution solution = Solve(imported->workload, "brkga", 200);
    ExpectRoundTrip(file, *text, imported->workload, solution);
  }
}

TEST(HloExportTest, OverridesParseAndNameTheSameDecisions) {
  const std::string file = "ssd_mobilenet_tf.hlo";
  auto text = ReadWholeFile(kDir + "/" + file);
  ASSERT_TRUE(text.ok());
  auto imported = ImportHloText(*text, OptionsFor(file));
  ASSERT_TRUE(imported.ok());
  const Workload& workload = imported->workload;
  const Solution solution = Solve(workload, "heuristic", 0);
  HloExport exported;
  ExpectRoundTrip(file, *text, workload, solution, &exported);
  xla::memory_space_assignment::MsaOverrides overrides;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      exported.overrides_txtpb, &overrides));
  int fast_outputs = 0, prefetches = 0;
  for (const BufferDecision& decision : solution.decisions()) {
    const Buffer& buffer = workload.buffers(decision.buffer_id());
    fast_outputs += buffer.is_output() && decision.action() != DROP;
    prefetches += !buffer.is_output() && decision.action() == COPY;
  }
  EXPECT_EQ(overrides.sort_order_overrides().overrides_size(), fast_outputs);
  EXPECT_EQ(overrides.preferred_prefetch_overrides().overrides_size(),
            prefetches);
  EXPECT_EQ(exported.prefetches, prefetches);
  // In the solution's order, each position named once.
  std::set<std::string> positions;
  for (int i = 0; i < overrides.sort_order_overrides().overrides_size(); ++i) {
    const auto& one = overrides.sort_order_overrides().overrides(i);
    EXPECT_EQ(one.override_options().assign_value(), i);
    positions.insert(one.hlo_position_matcher().instruction_name_regex());
  }
  EXPECT_EQ(static_cast<int>(positions.size()), fast_outputs);
  // The offsets: one row per allocation, the header first.
  int rows = 0;
  for (char c : exported.offsets_csv) rows += c == '\n';
  int allocations = 0;
  for (const BufferDecision& decision : solution.decisions()) {
    allocations += decision.action() != DROP && decision.has_interval_start();
  }
  EXPECT_EQ(rows, allocations + 1);
  EXPECT_THAT(exported.offsets_csv,
              HasSubstr("value,memory_space,offset,size,first_instruction"));
}

TEST(HloExportTest, RefusesAModuleThatIsNotTheWorkloadsOrAnInvalidSolution) {
  auto graphsage = ReadWholeFile(kDir + "/graphsage_tf.hlo");
  auto ssd = ReadWholeFile(kDir + "/ssd_mobilenet_tf.hlo");
  ASSERT_TRUE(graphsage.ok() && ssd.ok());
  auto imported = ImportHloText(*graphsage, OptionsFor("graphsage_tf.hlo"));
  ASSERT_TRUE(imported.ok());
  const Solution solution = Solve(imported->workload, "heuristic", 0);
  auto wrong = ExportSolution(*ssd, "ssd_mobilenet_tf.hlo", imported->workload,
                              solution);
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.status().message(),
              HasSubstr("ssd_mobilenet_tf.hlo: the module does not give this "
                        "workload"));
  Solution broken = solution;
  broken.mutable_decisions()->RemoveLast();
  auto invalid = ExportSolution(*graphsage, "graphsage_tf.hlo",
                                imported->workload, broken);
  ASSERT_FALSE(invalid.ok());
  EXPECT_THAT(invalid.status().message(), HasSubstr("not valid"));
}

// A conditional: its slowest branch (`slow`) is laid out and exported as
// a computation of its own; the other branch, where the conditional's
// value is left in fast memory, moves its value there at its end. Every
// placement of many played games comes back from the written module.
constexpr char kConditional[] = R"(HloModule branches, is_scheduled=true

slow {
  p = (f32[1024]{0}, f32[1024]{0}) parameter(0)
  a = f32[1024]{0} get-tuple-element(p), index=0
  b = f32[1024]{0} get-tuple-element(p), index=1
  e = f32[1024]{0} exponential(a)
  m = f32[1024]{0} multiply(e, b)
  s = f32[1024]{0} sine(m)
  ROOT r = (f32[1024]{0}, f32[1024]{0}) tuple(s, e)
}

quick {
  p = (f32[1024]{0}, f32[1024]{0}) parameter(0)
  a = f32[1024]{0} get-tuple-element(p), index=0
  b = f32[1024]{0} get-tuple-element(p), index=1
  ROOT r = (f32[1024]{0}, f32[1024]{0}) tuple(b, a)
}

ENTRY main {
  x = f32[1024]{0} parameter(0)
  y = f32[1024]{0} parameter(1)
  k = s32[] parameter(2)
  n = f32[1024]{0} negate(x)
  t = (f32[1024]{0}, f32[1024]{0}) tuple(n, y)
  c = (f32[1024]{0}, f32[1024]{0}) conditional(k, t, t), branch_computations={slow, quick}
  c0 = f32[1024]{0} get-tuple-element(c), index=0
  c1 = f32[1024]{0} get-tuple-element(c), index=1
  g = f32[1024]{0} cosine(c1)
  ROOT o = f32[1024]{0} add(c0, g)
})";

TEST(HloExportTest, ConditionalsRoundTripEveryPlacement) {
  HloImportOptions options = TestOptions();
  options.source_name = "branches.hlo";
  auto imported = ImportHloText(kConditional, options);
  ASSERT_TRUE(imported.ok()) << imported.status();
  const Workload& workload = imported->workload;
  int branches = 0;
  for (const Loop& loop : workload.loops()) {
    branches += loop.name() == "c/branch" && loop.trip_count() == 1;
  }
  EXPECT_EQ(branches, 1);
  auto program = game::Program::Create(workload);
  ASSERT_TRUE(program.ok()) << program.status();
  std::vector<Solution> solutions;
  solutions.push_back(Solve(workload, "heuristic", 0));
  solutions.push_back(Solve(workload, "drop-all", 1));
  solutions.push_back(Solve(workload, "brkga", 100));
  auto random = solvers::MakeSolver("random", {{"batch", "1"}});
  ASSERT_TRUE(random.ok()) << random.status();
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    solvers::SolverBudget budget;
    budget.max_evaluations = 1;
    budget.seed = seed;
    auto solution = (*random)->Solve(*program, budget);
    ASSERT_TRUE(solution.ok()) << solution.status();
    solutions.push_back(*solution);
  }
  int fast_results = 0;
  for (const Solution& solution : solutions) {
    HloExport exported;
    ExpectRoundTrip("branches.hlo", kConditional, workload, solution,
                    &exported);
    if (HasFailure()) return;
    // Where the conditional's value is left fast, the other branch's
    // value moves there too.
    fast_results += absl::StrContains(exported.mapped_hlo, "quick.c {");
  }
  EXPECT_GT(fast_results, 0);
}

// A small module as XLA prints it after its own memory-space assignment:
// `a` is computed in fast memory and read there; `w` (a parameter) is
// prefetched for the multiply under `c` and `d`; `b` is written back under
// `f` and `g` and read back from slow memory. Each instruction reads and
// writes 4 KB: its copy supply (its time with everything in fast memory)
// is half a 4-KB copy, so a copy takes two instructions.
constexpr char kAssigned[] = R"(HloModule assigned, is_scheduled=true

ENTRY main {
  x = f32[1024]{0} parameter(0)
  w = f32[1024]{0} parameter(1)
  w.start = (f32[1024]{0:S(1)}, f32[1024]{0}, u32[]) copy-start(w)
  a = f32[1024]{0:S(1)} exponential(x)
  c = f32[1024]{0} negate(x)
  d = f32[1024]{0} sine(c)
  w.done = f32[1024]{0:S(1)} copy-done(w.start)
  b = f32[1024]{0:S(1)} multiply(a, w.done)
  b.start = (f32[1024]{0}, f32[1024]{0:S(1)}, u32[]) copy-start(b)
  f = f32[1024]{0} cosine(d)
  g = f32[1024]{0} tanh(f)
  b.done = f32[1024]{0} copy-done(b.start)
  ROOT e = f32[1024]{0} add(b.done, g)
})";

TEST(HloMappingTest, ReadsXlasOwnPlacement) {
  auto imported = ImportHloText(kAssigned, TestOptions());
  ASSERT_TRUE(imported.ok()) << imported.status();
  const Workload& workload = imported->workload;
  // Steps a, c, d, b, f, g, e: the copies are transfers, not instructions.
  ASSERT_EQ(workload.instructions_size(), 7);
  EXPECT_EQ(imported->placement_transfers, 2);
  auto action_of = [&](const std::string& tensor, int step) {
    for (const Buffer& buffer : workload.buffers()) {
      if (buffer.tensor_name() == tensor && buffer.target_time() == step) {
        return imported->mapping[buffer.id()];
      }
    }
    return Action(-1);
  };
  EXPECT_EQ(action_of("x", 0), DROP);     // exponential reads x from slow
  EXPECT_EQ(action_of("a", 0), NO_COPY);  // a lives in fast memory
  EXPECT_EQ(action_of("a", 3), NO_COPY);
  EXPECT_EQ(action_of("w", 3), COPY);     // w's prefetch, its first reader
  EXPECT_EQ(action_of("b", 3), COPY);     // b written back under f and g
  EXPECT_EQ(action_of("b", 6), DROP);     // read back from slow memory
  EXPECT_EQ(action_of("c", 1), DROP);
  auto mapped = SolutionFromMapping(workload, imported->mapping);
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  EXPECT_EQ(mapped->changed, 0);
  const validate::ValidationReport report =
      validate::ValidateSolution(workload, mapped->solution);
  EXPECT_TRUE(report.ok) << validate::FormatViolation(report.violations[0]);
  EXPECT_GT(mapped->solution.normalised_return(), 0);
}

// Where the module's placement breaks the game's rules (here w is
// prefetched for the program's first instruction: no instruction to hide
// the copy under), the action is changed to one the game can play, and
// counted.
TEST(HloMappingTest, CountsWhatTheGameCannotPlay) {
  auto imported = ImportHloText(R"(HloModule early, is_scheduled=true
ENTRY main {
  x = f32[1024]{0} parameter(0)
  w = f32[1024]{0} parameter(1)
  w.start = (f32[1024]{0:S(1)}, f32[1024]{0}, u32[]) copy-start(w)
  w.done = f32[1024]{0:S(1)} copy-done(w.start)
  a = f32[1024]{0} multiply(x, w.done)
  ROOT b = f32[1024]{0} negate(a)
})",
                                TestOptions());
  ASSERT_TRUE(imported.ok()) << imported.status();
  auto mapped = SolutionFromMapping(imported->workload, imported->mapping);
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  EXPECT_EQ(mapped->copies, 1);
  EXPECT_EQ(mapped->changed, 1);
  EXPECT_TRUE(
      validate::ValidateSolution(imported->workload, mapped->solution).ok);
}

}  // namespace
}  // namespace mmapzero::hlo
