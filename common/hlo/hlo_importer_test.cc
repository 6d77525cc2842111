// The importer on small hand-written modules, one construct each; sizes,
// buffers and live ranges worked out by hand in the comments.
#include "common/hlo/hlo_importer.h"

#include <algorithm>
#include <string>
#include <vector>

#include "common/game/program.h"
#include "common/hlo/hlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::hlo {
namespace {

using ::testing::HasSubstr;

HloImportResult Import(const std::string& text) {
  auto result = ImportHloText(text, TestOptions());
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? *std::move(result) : HloImportResult{};
}

// The error importing `text` gives; OK when it imports.
absl::Status ImportError(const std::string& text) {
  auto result = ImportHloText(text, TestOptions());
  return result.ok() ? absl::OkStatus() : result.status();
}

// (tensor_name, is_output, target_time, size, live start, live end)
struct Row {
  std::string tensor;
  bool is_output;
  int time;
  int64_t size;
  int start;
  int end;
  bool operator==(const Row&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Row& r) {
  return os << "{" << r.tensor << (r.is_output ? " out" : " in") << " t"
            << r.time << " " << r.size << "B [" << r.start << "," << r.end
            << "]}";
}

std::vector<Row> Rows(const Workload& workload) {
  std::vector<Row> rows;
  for (const Buffer& b : workload.buffers()) {
    rows.push_back({b.tensor_name(), b.is_output(), b.target_time(), b.size(),
                    b.live_range().start(), b.live_range().end()});
  }
  return rows;
}

std::vector<std::string> Names(const Workload& workload) {
  std::vector<std::string> names;
  for (const Instruction& i : workload.instructions())
    names.push_back(i.name());
  return names;
}

TEST(HloImporterTest, ChainHasOneBufferPerOperandTensorAndOutput) {
  const HloImportResult result = Import(R"(HloModule chain, is_scheduled=true
ENTRY e {
  p0 = f32[16]{0} parameter(0)
  p1 = f32[16]{0} parameter(1)
  a = f32[16]{0} add(p0, p1)
  b = f32[16]{0} multiply(a, a)
  ROOT c = f32[16]{0} subtract(b, p0)
})");
  const Workload& w = result.workload;
  EXPECT_THAT(Names(w), ::testing::ElementsAre("a", "b", "c"));
  // Parameters live from 0; a is read once by multiply although named twice;
  // c is the module's output and lives to the end (T-1 = 2).
  EXPECT_THAT(Rows(w),
              ::testing::ElementsAre(
                  Row{"p0", false, 0, 64, 0, 2}, Row{"p1", false, 0, 64, 0, 0},
                  Row{"a", true, 0, 64, 0, 1}, Row{"a", false, 1, 64, 0, 1},
                  Row{"b", true, 1, 64, 1, 2}, Row{"b", false, 2, 64, 1, 2},
                  Row{"p0", false, 2, 64, 0, 2}, Row{"c", true, 2, 64, 2, 2}));
  EXPECT_EQ(w.instructions(0).roofline().flops(), 16);
  EXPECT_EQ(w.provenance().at("is_scheduled"), "true");
  EXPECT_EQ(w.memory_size(), TestOptions().hardware.fast_memory_bytes());
  EXPECT_TRUE(result.warnings.empty());
  ExpectRandomGameValidates(w, 1);
}

TEST(HloImporterTest, TuplesGetTupleElementAndBitcastAreViews) {
  const HloImportResult result = Import(R"(HloModule views, is_scheduled=true
ENTRY e {
  p = (f32[8]{0}, s32[4]{0}) parameter(0)
  x = f32[8]{0} get-tuple-element(p), index=0
  y = s32[4]{0} get-tuple-element(p), index=1
  z = f32[2,4]{1,0} bitcast(x)
  n = f32[2,4]{1,0} negate(z)
  t = (f32[2,4]{1,0}, s32[4]{0}) tuple(n, y)
  g = s32[4]{0} get-tuple-element(t), index=1
  ROOT r = s32[4]{0} add(g, y)
})");
  const Workload& w = result.workload;
  EXPECT_THAT(Names(w), ::testing::ElementsAre("n", "r"));
  // g and y are one tensor (p's element 1): add reads it once.
  EXPECT_THAT(Rows(w), ::testing::ElementsAre(Row{"p{0}", false, 0, 32, 0, 0},
                                              Row{"n", true, 0, 32, 0, 0},
                                              Row{"p{1}", false, 1, 16, 0, 1},
                                              Row{"r", true, 1, 16, 1, 1}));
  ExpectRandomGameValidates(w, 2);
}

TEST(HloImporterTest, DynamicUpdateSliceAliasesItsOperandAndOutput) {
  const HloImportResult result = Import(R"(HloModule dus, is_scheduled=true
ENTRY e {
  buf = f32[8,4]{1,0} parameter(0)
  upd = f32[1,4]{1,0} parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  ROOT d = f32[8,4]{1,0} dynamic-update-slice(buf, upd, i, z)
})");
  const Workload& w = result.workload;
  ASSERT_EQ(w.buffers_size(), 5);  // buf, upd, i, z, d
  EXPECT_EQ(w.buffers(0).size(), 128);
  EXPECT_EQ(w.buffers(4).size(), 128);
  ASSERT_TRUE(w.buffers(0).has_alias_id());
  ASSERT_TRUE(w.buffers(4).has_alias_id());
  EXPECT_EQ(w.buffers(0).alias_id(), w.buffers(4).alias_id());
  for (int i = 1; i < 4; ++i) EXPECT_FALSE(w.buffers(i).has_alias_id());
  ExpectRandomGameValidates(w, 3);
}

constexpr char kLoop[] = R"(HloModule loop, is_scheduled=true
cond {
  s = (s32[], f32[256]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[256]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  x = f32[256]{0} get-tuple-element(s), index=1
  x2 = f32[256]{0} exponential(x)
  ROOT t = (s32[], f32[256]{0}) tuple(i2, x2)
}
ENTRY e {
  zero = s32[] constant(0)
  x = f32[256]{0} parameter(0)
  init = (s32[], f32[256]{0}) tuple(zero, x)
  w = (s32[], f32[256]{0}) while(init), condition=cond, body=body
  ROOT r = f32[256]{0} get-tuple-element(w), index=1
})";

// The loop is laid out once between its entry and exit markers: the
// condition's compare, then the body's add and exponential, 10 trips.
//   t0 w/entry reads zero, x; t1 compare(zero, n) -> lt; t2 add(zero, one)
//   -> i2; t3 exponential(x) -> x2; t4 w (exit) reads i2, x2.
// Each state element is one allocation: {zero's reads, i2, i2's exit read}
// and {x's reads, x2, x2's exit read}.
TEST(HloImporterTest, WhileIsLaidOutOnceWithItsTripCountAndOneGroupPerState) {
  const HloImportResult result = Import(kLoop);
  const Workload& w = result.workload;
  EXPECT_THAT(Names(w), ::testing::ElementsAre("w/entry", "w/cond/lt",
                                               "w/body/i2", "w/body/x2", "w"));
  EXPECT_EQ(w.instructions(0).opcode(), "loop-entry");
  EXPECT_EQ(w.instructions(4).opcode(), "loop-exit");
  for (int t : {0, 4}) {
    EXPECT_EQ(w.instructions(t).latency_case(), Instruction::LATENCY_NOT_SET);
    EXPECT_EQ(w.instructions(t).supply_us(), 0);
  }
  // The loop, and its body a one-trip loop of its own inside it (copies
  // stay in the computation they start in).
  ASSERT_EQ(w.loops_size(), 2);
  EXPECT_EQ(w.loops(0).name(), "w");
  EXPECT_EQ(w.loops(0).trip_count(), 10);
  EXPECT_EQ(w.loops(0).first_step(), 1);
  EXPECT_EQ(w.loops(0).last_step(), 3);
  EXPECT_EQ(w.loops(1).name(), "w/body");
  EXPECT_EQ(w.loops(1).trip_count(), 1);
  EXPECT_EQ(w.loops(1).first_step(), 2);
  EXPECT_EQ(w.loops(1).last_step(), 3);
  EXPECT_THAT(Rows(w), ::testing::ElementsAre(
                           Row{"zero", false, 0, 4, 0, 2},
                           Row{"x", false, 0, 1024, 0, 3},
                           Row{"zero", false, 1, 4, 0, 2},
                           Row{"w/cond/n", false, 1, 4, 0, 1},
                           Row{"w/cond/lt", true, 1, 1, 1, 1},
                           Row{"zero", false, 2, 4, 0, 2},
                           Row{"w/body/one", false, 2, 4, 0, 2},
                           Row{"w/body/i2", true, 2, 4, 2, 4},
                           Row{"x", false, 3, 1024, 0, 3},
                           Row{"w/body/x2", true, 3, 1024, 3, 4},
                           Row{"w/body/i2", false, 4, 4, 2, 4},
                           Row{"w/body/x2", false, 4, 1024, 3, 4}));
  for (int b : {0, 2, 5, 7, 10}) {
    ASSERT_TRUE(w.buffers(b).has_alias_id()) << b;
    EXPECT_EQ(w.buffers(b).alias_id(), w.buffers(0).alias_id()) << b;
  }
  for (int b : {1, 8, 9, 11}) {
    ASSERT_TRUE(w.buffers(b).has_alias_id()) << b;
    EXPECT_EQ(w.buffers(b).alias_id(), w.buffers(1).alias_id()) << b;
  }
  EXPECT_NE(w.buffers(0).alias_id(), w.buffers(1).alias_id());
  for (int b : {3, 4, 6}) EXPECT_FALSE(w.buffers(b).has_alias_id()) << b;
  // The markers take no time and save nothing.
  for (int b : {0, 1, 10, 11}) EXPECT_EQ(w.buffers(b).benefit_us(), 0) << b;
  EXPECT_TRUE(result.warnings.empty());
  EXPECT_EQ(w.provenance().at("loops"), "1");
  ExpectRandomGameValidates(w, 3);
}

// The body's instructions count once per trip: the game's all-slow latency
// is 10 x the body's and condition's, and the markers add nothing.
TEST(HloImporterTest, LoopStepsCountTheirTripCountInTheGame) {
  const Workload w = Import(kLoop).workload;
  auto program = game::Program::Create(w);
  ASSERT_TRUE(program.ok()) << program.status();
  Workload straight = w;
  straight.clear_loops();
  auto once = game::Program::Create(straight);
  ASSERT_TRUE(once.ok()) << once.status();
  EXPECT_DOUBLE_EQ((*program)->empty_latency_us(),
                   10 * (*once)->empty_latency_us());
  EXPECT_EQ((*program)->instruction(2).repeat, 10);
  EXPECT_EQ((*program)->instruction(4).repeat, 1);
}

TEST(HloImporterTest, UnknownTripCountIsOneTripWithWarning) {
  std::string text = kLoop;
  text.replace(text.find("direction=LT"), 12, "direction=GT");
  const HloImportResult result = Import(text);
  ASSERT_EQ(result.warnings.size(), 1u);
  EXPECT_THAT(result.warnings[0],
              HasSubstr("test.hlo:21: while 'w': trip count unknown"));
  EXPECT_THAT(result.warnings[0], HasSubstr("--trip-counts w=N"));
  ASSERT_EQ(result.workload.loops_size(), 2);
  EXPECT_EQ(result.workload.loops(0).trip_count(), 1);
}

TEST(HloImporterTest, GivenTripCountOverridesTheModule) {
  HloImportOptions options = TestOptions();
  options.trip_counts["w"] = 7;
  auto result = ImportHloText(kLoop, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->workload.loops(0).trip_count(), 7);
  options.trip_counts["nowhere"] = 2;
  auto unknown = ImportHloText(kLoop, options);
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(),
              HasSubstr("trip count given for 'nowhere', which is not a while"));
}

TEST(HloImporterTest, TripCountFromTheCounterStartInTheInitialTuple) {
  std::string text = kLoop;
  text.replace(text.find("zero = s32[] constant(0)"), 24,
               "zero = s32[] constant(4)");
  const Workload w = Import(text).workload;
  EXPECT_EQ(w.loops(0).trip_count(), 6);  // 4, 5, ..., 9
}

// The initial value of x is read after the loop: the loop state gets a copy
// of it first, as XLA's copy insertion does, so the body's new value never
// shares bytes with a value still live.
TEST(HloImporterTest, LoopStateReadAfterTheLoopIsCopiedFirst) {
  std::string text = kLoop;
  const std::string root = "ROOT r = f32[256]{0} get-tuple-element(w), index=1";
  text.replace(text.find(root), root.size(),
               "r = f32[256]{0} get-tuple-element(w), index=1\n"
               "  ROOT sum = f32[256]{0} add(r, x)");
  const Workload w = Import(text).workload;
  EXPECT_EQ(w.instructions(0).name(), "w/entry/copy{1}");
  EXPECT_EQ(w.instructions(1).name(), "w/entry");
  EXPECT_EQ(w.provenance().at("loop_copies"), "1");
  ASSERT_EQ(w.loops(0).first_step(), 2);
  ExpectRandomGameValidates(w, 5);
}

// The body swaps two elements: neither new value can take its element's
// place, so the body ends with a copy into each.
TEST(HloImporterTest, SwappedLoopStateEndsTheBodyWithCopies) {
  const Workload w = Import(R"(HloModule swap, is_scheduled=true
cond {
  s = (s32[], f32[64]{0}, f32[64]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[64]{0}, f32[64]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  a = f32[64]{0} get-tuple-element(s), index=1
  b = f32[64]{0} get-tuple-element(s), index=2
  ROOT t = (s32[], f32[64]{0}, f32[64]{0}) tuple(i2, b, a)
}
ENTRY e {
  zero = s32[] constant(0)
  a0 = f32[64]{0} parameter(0)
  b0 = f32[64]{0} parameter(1)
  init = (s32[], f32[64]{0}, f32[64]{0}) tuple(zero, a0, b0)
  w = (s32[], f32[64]{0}, f32[64]{0}) while(init), condition=cond, body=body
  ROOT r = f32[64]{0} get-tuple-element(w), index=1
})").workload;
  EXPECT_THAT(Names(w), ::testing::ElementsAre(
                            "w/entry", "w/cond/lt", "w/body/i2", "w/copy{1}",
                            "w/copy{2}", "w"));
  EXPECT_EQ(w.loops(0).last_step(), 4);
  ExpectRandomGameValidates(w, 9);
}

TEST(HloImporterTest, InputOutputAliasTiesParameterLastUseToOutput) {
  const HloImportResult result = Import(
      R"(HloModule io, input_output_alias={ {0}: (0, {}, may-alias) }, is_scheduled=true
ENTRY e {
  w = f32[64]{0} parameter(0)
  g = f32[64]{0} parameter(1)
  s = f32[64]{0} multiply(g, g)
  u = f32[64]{0} subtract(w, s)
  ROOT t = (f32[64]{0}, f32[64]{0}) tuple(u, s)
})");
  const Workload& w = result.workload;
  EXPECT_THAT(Rows(w), ::testing::ElementsAre(Row{"g", false, 0, 256, 0, 0},
                                              Row{"s", true, 0, 256, 0, 1},
                                              Row{"w", false, 1, 256, 0, 1},
                                              Row{"s", false, 1, 256, 0, 1},
                                              Row{"u", true, 1, 256, 1, 1}));
  ASSERT_TRUE(w.buffers(2).has_alias_id());
  EXPECT_EQ(w.buffers(2).alias_id(), w.buffers(4).alias_id());
  EXPECT_FALSE(w.buffers(1).has_alias_id());
  ExpectRandomGameValidates(w, 4);
}

TEST(HloImporterTest, ExistingCopyStartDonePairsAndMemorySpaces) {
  const HloImportResult result = Import(R"(HloModule cp, is_scheduled=true
ENTRY e {
  p = f32[32]{0} parameter(0)
  cs = (f32[32]{0:S(1)}, f32[32]{0}, u32[]) copy-start(p)
  cd = f32[32]{0:S(1)} copy-done(cs)
  ROOT n = f32[32]{0:S(1)} negate(cd)
})");
  const Workload& w = result.workload;
  // A copy between memory spaces is a placement's transfer, not work: the
  // copy-done names p itself, read by the negate.
  EXPECT_THAT(Names(w), ::testing::ElementsAre("n"));
  EXPECT_THAT(Rows(w), ::testing::ElementsAre(Row{"p", false, 0, 128, 0, 0},
                                              Row{"n", true, 0, 128, 0, 0}));
  // The placement is the module's own answer (--mapping-out): p prefetched
  // for the negate, n made in fast memory.
  EXPECT_EQ(result.placement_transfers, 1);
  EXPECT_THAT(result.mapping, ::testing::ElementsAre(COPY, NO_COPY));
  // The S(1) annotations are noted once, naming the first line with one.
  ASSERT_EQ(result.warnings.size(), 1u);
  EXPECT_THAT(result.warnings[0],
              HasSubstr("test.hlo:4: 3 arrays carry a memory-space "
                        "annotation"));
}

// Entry -> outer -> inner: every call is replaced by the instructions of
// the computation it calls, named <call>/<name>, in program order; the
// callee's parameters are the caller's operands and the call's value is
// the callee's ROOT.
constexpr char kNestedCalls[] = R"(HloModule calls, is_scheduled=true
inner {
  x = f32[16]{0} parameter(0)
  y = f32[16]{0} parameter(1)
  s = f32[16]{0} add(x, y)
  ROOT m = f32[16]{0} multiply(s, x)
}
outer {
  a = f32[16]{0} parameter(0)
  i = f32[16]{0} call(a, a), to_apply=inner
  ROOT n = f32[16]{0} negate(i)
}
ENTRY e {
  p = f32[16]{0} parameter(0)
  c = f32[16]{0} call(p), to_apply=outer
  ROOT r = f32[16]{0} exponential(c)
})";

TEST(HloImporterTest, CallsAreInlinedWithTheirWorkNestedCallsIncluded) {
  const HloImportResult result = Import(kNestedCalls);
  const Workload& w = result.workload;
  EXPECT_THAT(Names(w), ::testing::ElementsAre("c/i/s", "c/i/m", "c/n", "r"));
  EXPECT_THAT(Rows(w),
              ::testing::ElementsAre(
                  Row{"p", false, 0, 64, 0, 1}, Row{"c/i/s", true, 0, 64, 0, 1},
                  Row{"c/i/s", false, 1, 64, 0, 1},
                  Row{"p", false, 1, 64, 0, 1},
                  Row{"c/i/m", true, 1, 64, 1, 2},
                  Row{"c/i/m", false, 2, 64, 1, 2},
                  Row{"c/n", true, 2, 64, 2, 3},
                  Row{"c/n", false, 3, 64, 2, 3}, Row{"r", true, 3, 64, 3, 3}));
  EXPECT_EQ(w.provenance().at("inlined_calls"), "2");
  EXPECT_EQ(w.provenance().at("hlo_entry_instructions"), "3");
  EXPECT_TRUE(result.warnings.empty()) << result.warnings.front();
  ExpectRandomGameValidates(w, 5);
}

TEST(HloImporterTest, AnEntryThatOnlyCallsImportsToItsRealInstructionCount) {
  // PyTorch/XLA and XLA:GPU command buffers hand the entry's work to one
  // called computation; its result may pass a parameter straight through.
  const HloImportResult result = Import(R"(HloModule wrapped
body {
  a = f32[8,16]{1,0} parameter(0)
  b = f32[16,4]{1,0} parameter(1)
  d = f32[8,4]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e = f32[8,4]{1,0} exponential(d)
  ROOT t = (f32[8,4]{1,0}, f32[16,4]{1,0}) tuple(e, b)
}
ENTRY main {
  a = f32[8,16]{1,0} parameter(0)
  b = f32[16,4]{1,0} parameter(1)
  ROOT c = (f32[8,4]{1,0}, f32[16,4]{1,0}) call(a, b), to_apply=body
})");
  const Workload& w = result.workload;
  EXPECT_THAT(Names(w), ::testing::ElementsAre("c/d", "c/e"));
  // The dot keeps its own cost: 2 x 32 outputs x 16 contracted.
  EXPECT_EQ(w.instructions(0).roofline().flops(), 1024);
  // b is passed through to the output: it lives to the end.
  bool b_to_end = false;
  for (const Buffer& buffer : w.buffers()) {
    if (buffer.tensor_name() == "b") b_to_end = buffer.live_range().end() == 1;
  }
  EXPECT_TRUE(b_to_end);
  ExpectRandomGameValidates(w, 6);
}

TEST(HloImporterTest, MalformedCallsAreErrorsNamingTheLine) {
  // A computation that calls itself.
  EXPECT_THAT(ImportError(R"(HloModule r
loop {
  x = f32[4]{0} parameter(0)
  ROOT y = f32[4]{0} call(x), to_apply=loop
}
ENTRY e {
  p = f32[4]{0} parameter(0)
  ROOT c = f32[4]{0} call(p), to_apply=loop
})")
                  .message(),
              HasSubstr("test.hlo:4: calls nest deeper than 64 levels"));
  // A parameter number the call does not pass.
  EXPECT_THAT(ImportError(R"(HloModule m
f {
  x = f32[4]{0} parameter(1)
  ROOT y = f32[4]{0} negate(x)
}
ENTRY e {
  p = f32[4]{0} parameter(0)
  ROOT c = f32[4]{0} call(p), to_apply=f
})")
                  .message(),
              HasSubstr("test.hlo:3: parameter(1) of computation 'f' is not "
                        "one of the call's 1 operands"));
}

TEST(HloImporterTest, AsyncPairIsOneOperationSpanningItsInterval) {
  // The async start runs the wrapped dot; what it reads stays live until
  // its done, across the instruction scheduled between them.
  const HloImportResult result = Import(R"(HloModule async, is_scheduled=true
wrapped {
  a = f32[8,16]{1,0} parameter(0)
  b = f32[16,4]{1,0} parameter(1)
  ROOT d = f32[8,4]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
ENTRY e {
  a = f32[8,16]{1,0} parameter(0)
  b = f32[16,4]{1,0} parameter(1)
  q = f32[4]{0} parameter(2)
  s = ((f32[8,16]{1,0}, f32[16,4]{1,0}), f32[8,4]{1,0}, u32[]) async-start(a, b), calls=wrapped
  n = f32[4]{0} negate(q)
  d = f32[8,4]{1,0} async-done(s)
  ROOT t = (f32[8,4]{1,0}, f32[4]{0}) tuple(d, n)
})");
  const Workload& w = result.workload;
  EXPECT_THAT(Names(w), ::testing::ElementsAre("s", "n"));
  EXPECT_EQ(w.instructions(0).roofline().flops(), 1024);
  for (const Buffer& buffer : w.buffers()) {
    if (buffer.tensor_name() == "a" || buffer.tensor_name() == "b") {
      EXPECT_EQ(buffer.live_range().end(), 1) << buffer.tensor_name();
    }
  }
  EXPECT_TRUE(result.warnings.empty()) << result.warnings.front();
  ExpectRandomGameValidates(w, 7);
}

TEST(HloImporterTest, SendKeepsItsDataLiveUntilSendDone) {
  const HloImportResult result = Import(R"(HloModule sd, is_scheduled=true
ENTRY e {
  x = f32[8]{0} parameter(0)
  q = f32[8]{0} parameter(1)
  t = token[] after-all()
  s = (f32[8]{0}, u32[], token[]) send(x, t), channel_id=1
  n = f32[8]{0} negate(q)
  d = token[] send-done(s), channel_id=1
  ROOT r = f32[8]{0} exponential(n)
})");
  const Workload& w = result.workload;
  // send-done is a view of nothing (a token): no instruction of its own.
  EXPECT_THAT(Names(w), ::testing::ElementsAre("s", "n", "r"));
  // x is read only by send (t0); it is being sent until send-done, after
  // negate (t1).
  for (const Buffer& buffer : w.buffers()) {
    if (buffer.tensor_name() == "x") {
      EXPECT_EQ(buffer.live_range().end(), 1);
    }
  }
  ExpectRandomGameValidates(w, 8);
}

TEST(HloImporterTest, FusionIsOneInstructionCostedByItsFusedFlops) {
  const HloImportResult result = Import(R"(HloModule fu, is_scheduled=true
fused {
  a = f32[8,16]{1,0} parameter(0)
  b = f32[16,4]{1,0} parameter(1)
  d = f32[8,4]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = f32[8,4]{1,0} maximum(d, d)
}
ENTRY e {
  a = f32[8,16]{1,0} parameter(0)
  b = f32[16,4]{1,0} parameter(1)
  ROOT f = f32[8,4]{1,0} fusion(a, b), kind=kOutput, calls=fused
})");
  const Workload& w = result.workload;
  ASSERT_EQ(w.instructions_size(), 1);
  // dot: 2 x 32 outputs x 16 contracted = 1024; maximum: 32.
  EXPECT_EQ(w.instructions(0).roofline().flops(), 1056);
  EXPECT_EQ(w.buffers_size(), 3);
}

TEST(HloImporterTest, ConvolutionAndGpuCustomCallsCostedFromAttributes) {
  const HloImportResult result = Import(R"(HloModule gpu, is_scheduled=true
ENTRY e {
  x = f32[1,8,8,4]{3,2,1,0} parameter(0)
  k = f32[3,3,4,16]{3,2,1,0} parameter(1)
  c = f32[1,8,8,16]{3,2,1,0} convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  a = f32[8,16]{1,0} parameter(2)
  b = f32[16,4]{1,0} parameter(3)
  g = (f32[8,4]{1,0}, s8[1024]{0}) custom-call(a, b), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"]}}}
  xn = f32[1,4,8,8]{3,2,1,0} parameter(4)
  kn = f32[16,4,3,3]{3,2,1,0} parameter(5)
  d = (f32[1,16,8,8]{3,2,1,0}, u8[0]{0}) custom-call(xn, kn), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, custom_call_target="__cudnn$convForward", backend_config="{\"conv_result_scale\":1}"
  g0 = f32[8,4]{1,0} get-tuple-element(g), index=0
  d0 = f32[1,16,8,8]{3,2,1,0} get-tuple-element(d), index=0
  ROOT t = (f32[1,8,8,16]{3,2,1,0}, f32[8,4]{1,0}, f32[1,16,8,8]{3,2,1,0}) tuple(c, g0, d0)
})");
  const Workload& w = result.workload;
  ASSERT_EQ(w.instructions_size(), 3);
  // 2 x 1024 outputs x (3 x 3 x 4) per output.
  EXPECT_EQ(w.instructions(0).roofline().flops(), 73728);
  EXPECT_EQ(w.instructions(1).roofline().flops(), 1024);
  EXPECT_EQ(w.instructions(2).roofline().flops(), 73728);
  // The cuDNN scratch u8[0] has no buffer: xn, kn, d{0}.
  int at_two = 0;
  for (const Buffer& b : w.buffers()) at_two += b.target_time() == 2;
  EXPECT_EQ(at_two, 3);
  EXPECT_TRUE(result.warnings.empty());
}

TEST(HloImporterTest, TokensEmptyArraysAndUnknownCustomCalls) {
  const HloImportResult result = Import(R"(HloModule tok, is_scheduled=true
ENTRY e {
  t = token[] after-all()
  p = f32[4]{0} parameter(0)
  e = f32[0]{0} constant({})
  o = (f32[4]{0}, token[]) custom-call(p, t, e), custom_call_target="foo"
  ROOT g = f32[4]{0} get-tuple-element(o), index=0
})");
  EXPECT_THAT(Rows(result.workload),
              ::testing::ElementsAre(Row{"p", false, 0, 16, 0, 0},
                                     Row{"o{0}", true, 0, 16, 0, 0}));
  ASSERT_EQ(result.warnings.size(), 1u);
  EXPECT_THAT(result.warnings[0],
              HasSubstr("test.hlo:6: custom-call 'foo' has no cost model"));
}

TEST(HloImporterTest, UnscheduledModuleUsesADependencyRespectingOrder) {
  const HloImportResult result = Import(R"(HloModule un
ENTRY e {
  p = f32[4]{0} parameter(0)
  ROOT b = f32[4]{0} add(a, a)
  a = f32[4]{0} negate(p)
})");
  EXPECT_THAT(Names(result.workload), ::testing::ElementsAre("a", "b"));
  EXPECT_EQ(result.workload.provenance().at("is_scheduled"), "false");
}

TEST(HloImporterTest, MalformedModulesGiveErrorsNamingTheLine) {
  EXPECT_THAT(ImportError("HloModule s, is_scheduled=true\nENTRY e {\n  p = "
                          "f32[4] parameter(0)\n  ROOT b = f32[4] add(a, a)\n"
                          "  a = f32[4] negate(p)\n}\n")
                  .message(),
              HasSubstr("test.hlo:4: operand 'a' is used before its "
                        "definition"));
  EXPECT_THAT(ImportError("HloModule s\nENTRY e {\n  ROOT b = f32[4] "
                          "negate(nowhere)\n}\n")
                  .message(),
              HasSubstr("test.hlo:3: operand 'nowhere' is not defined"));
  EXPECT_THAT(ImportError("HloModule s\nENTRY e {\n  p = (f32[4]) "
                          "parameter(0)\n  ROOT g = f32[4] "
                          "get-tuple-element(p), index=3\n}\n")
                  .message(),
              HasSubstr("test.hlo:4: get-tuple-element 'g': index 3"));
  EXPECT_THAT(ImportError("HloModule s\nENTRY e {\n  ROOT p = f32[4] "
                          "parameter(0)\n}\n")
                  .message(),
              HasSubstr("does no work"));
  EXPECT_THAT(ImportError("HloModule s\nENTRY e {\n  p = f32[4] parameter(0)\n"
                          "  ROOT q = f32[4] negate(p)\n")
                  .message(),
              HasSubstr("not closed"));
  EXPECT_THAT(ImportError("HloModule s\nENTRY e {\n  ROOT q = f32[4] "
                          "teleport()\n}\n")
                  .message(),
              HasSubstr("test.hlo:3: unknown opcode 'teleport'"));
}

TEST(HloImporterTest, MissingFileIsNotFound) {
  auto result = ImportHloFile("/nonexistent/x.hlo", TestOptions());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace mmapzero::hlo
