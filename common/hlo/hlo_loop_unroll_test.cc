// The loop model against the program it stands for (rules §7). A module
// with a three-trip while loop is imported as a loop; the same program
// written out by hand as straight-line code, each trip's instructions
// named NAME_tK, is imported too. The same decisions are played on both
// (each unrolled buffer takes the action of the loop buffer it is a trip
// of) and the validator's modelled latency and the latency simulator's
// figure are compared: with no copy inside the body they agree to float
// rounding, and with a prefetch inside the body, whose copy runs on every
// trip, too (the model promises 0.5 %).
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/game/mmap_game.h"
#include "common/game/program.h"
#include "common/hlo/hlo_importer.h"
#include "common/hlo/hlo_test_util.h"
#include "common/validate/evaluation.h"
#include "gtest/gtest.h"

namespace mmapzero::hlo {
namespace {

constexpr char kLoop[] = R"(HloModule loop3, is_scheduled=true

cond {
  s = (s32[], f32[65536]{0}, f32[262144]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[65536]{0}, f32[262144]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  x = f32[65536]{0} get-tuple-element(s), index=1
  w = f32[262144]{0} get-tuple-element(s), index=2
  a = f32[262144]{0} multiply(w, w)
  b = f32[65536]{0} exponential(x)
  d = f32[262144]{0} sine(a)
  e = f32[65536]{0} slice(d), slice={[0:65536]}
  c = f32[65536]{0} add(b, e)
  ROOT t = (s32[], f32[65536]{0}, f32[262144]{0}) tuple(i2, c, w)
}

ENTRY main {
  zero = s32[] constant(0)
  x0 = f32[65536]{0} parameter(0)
  w0 = f32[262144]{0} parameter(1)
  init = (s32[], f32[65536]{0}, f32[262144]{0}) tuple(zero, x0, w0)
  loop = (s32[], f32[65536]{0}, f32[262144]{0}) while(init), condition=cond, body=body, backend_config={"known_trip_count":{"n":"3"}}
  r = f32[65536]{0} get-tuple-element(loop), index=1
  ROOT out = f32[65536]{0} negate(r)
})";

// The body once per trip; `i` and `x` are the previous trip's values.
std::string Unrolled() {
  std::string text = R"(HloModule unrolled3, is_scheduled=true

ENTRY main {
  zero = s32[] constant(0)
  x0 = f32[65536]{0} parameter(0)
  w0 = f32[262144]{0} parameter(1)
  n = s32[] constant(3)
  one = s32[] constant(1)
)";
  for (int k = 0; k < 3; ++k) {
    const std::string i = k == 0 ? "zero" : absl::StrCat("i2_t", k - 1);
    const std::string x = k == 0 ? "x0" : absl::StrCat("c_t", k - 1);
    const std::string t = absl::StrCat("_t", k);
    absl::StrAppend(
        &text, "  lt", t, " = pred[] compare(", i, ", n), direction=LT\n",
        "  i2", t, " = s32[] add(", i, ", one)\n",
        "  a", t, " = f32[262144]{0} multiply(w0, w0)\n",
        "  b", t, " = f32[65536]{0} exponential(", x, ")\n",
        "  d", t, " = f32[262144]{0} sine(a", t, ")\n",
        "  e", t, " = f32[65536]{0} slice(d", t, "), slice={[0:65536]}\n",
        "  c", t, " = f32[65536]{0} add(b", t, ", e", t, ")\n");
  }
  absl::StrAppend(&text, "  ROOT out = f32[65536]{0} negate(c_t2)\n}\n");
  return text;
}

Workload ImportOrDie(const std::string& text) {
  auto result = ImportHloText(text, TestOptions());
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? result->workload : Workload();
}

// An instruction's name without its loop prefix or trip suffix, and its
// trip (0 outside a loop).
std::pair<std::string, int> BaseName(const std::string& name) {
  std::string base = name;
  for (const char* prefix : {"loop/body/", "loop/cond/"}) {
    if (absl::StartsWith(base, prefix)) base = base.substr(strlen(prefix));
  }
  const size_t trip = base.rfind("_t");
  if (trip != std::string::npos) {
    return {base.substr(0, trip), std::atoi(base.c_str() + trip + 2)};
  }
  return {base, 0};
}

// Buffer ids of each step, in the workload's order.
std::vector<std::vector<int>> BuffersByStep(const Workload& workload) {
  std::vector<std::vector<int>> by_step(workload.instructions_size());
  for (const Buffer& buffer : workload.buffers()) {
    by_step[buffer.target_time()].push_back(buffer.id());
  }
  return by_step;
}

using Choice = std::function<game::Action(const Buffer&)>;

// Plays `workload` with the action `choose` gives each buffer (it must be
// legal) and evaluates the result.
validate::Evaluation Play(const Workload& workload, const Choice& choose) {
  auto program = game::Program::Create(workload);
  EXPECT_TRUE(program.ok()) << program.status();
  game::MMapGame game(*program);
  while (!game.IsTerminal()) {
    const Buffer& buffer = workload.buffers(game.CurrentBuffer());
    const game::Action action = choose(buffer);
    EXPECT_TRUE(game.Outcome(action).legal)
        << workload.name() << ": buffer " << buffer.id() << " ("
        << buffer.tensor_name() << ") cannot take action "
        << static_cast<int>(action);
    if (!game.Outcome(action).legal) return {};
    game.ApplyAction(action);
  }
  EXPECT_EQ(game.drop_backups(), 0);
  auto evaluation = validate::EvaluateSolution(workload, game.ToSolution());
  EXPECT_TRUE(evaluation.ok()) << evaluation.status();
  return evaluation.ok() ? *evaluation : validate::Evaluation{};
}

struct Comparison {
  validate::Evaluation loop;
  validate::Evaluation unrolled;
};

// The loop model played with `choose`, and the unrolled program played with
// the action of each buffer's counterpart in the loop model.
Comparison PlayBoth(const Choice& choose) {
  const Workload loop = ImportOrDie(kLoop);
  const Workload unrolled = ImportOrDie(Unrolled());
  EXPECT_EQ(loop.loops_size(), 2);  // the loop, and its body
  EXPECT_EQ(unrolled.loops_size(), 0);
  absl::flat_hash_map<std::string, int> loop_step;
  for (int t = 0; t < loop.instructions_size(); ++t) {
    loop_step[BaseName(loop.instructions(t).name()).first] = t;
  }
  const auto loop_buffers = BuffersByStep(loop);
  const auto unrolled_buffers = BuffersByStep(unrolled);
  // Each unrolled buffer's counterpart: the same instruction of the body,
  // the same position among its buffers.
  std::vector<int> counterpart(unrolled.buffers_size(), -1);
  for (int t = 0; t < unrolled.instructions_size(); ++t) {
    const std::string base = BaseName(unrolled.instructions(t).name()).first;
    const auto found = loop_step.find(base);
    EXPECT_NE(found, loop_step.end()) << base;
    if (found == loop_step.end()) continue;
    const std::vector<int>& ours = unrolled_buffers[t];
    const std::vector<int>& theirs = loop_buffers[found->second];
    EXPECT_EQ(ours.size(), theirs.size()) << base;
    for (size_t j = 0; j < ours.size() && j < theirs.size(); ++j) {
      counterpart[ours[j]] = theirs[j];
    }
  }
  Comparison result;
  result.loop = Play(loop, choose);
  result.unrolled = Play(unrolled, [&](const Buffer& buffer) {
    const int other = counterpart[buffer.id()];
    EXPECT_GE(other, 0) << buffer.tensor_name();
    return other < 0 ? game::Action::kDrop : choose(loop.buffers(other));
  });
  return result;
}

bool IsBodyLocal(const Buffer& buffer) {
  for (const char* name : {"loop/body/a", "loop/body/b", "loop/body/d",
                           "loop/body/e", "loop/cond/lt"}) {
    if (buffer.tensor_name() == name) return true;
  }
  return false;
}

TEST(LoopUnrollTest, NoTransferInsideTheBodyGivesTheUnrolledLatency) {
  // The body's temporaries live in fast memory; the loop state, the
  // constants and the program's output stay in slow memory.
  const Comparison both = PlayBoth([](const Buffer& buffer) {
    return IsBodyLocal(buffer) ? game::Action::kNoCopy : game::Action::kDrop;
  });
  EXPECT_EQ(both.loop.simulation.num_prefetches, 0);
  const double modelled = both.unrolled.validation.latency_us;
  ASSERT_GT(modelled, 0);
  EXPECT_NEAR(both.loop.validation.latency_us, modelled, 1e-12 * modelled);
  EXPECT_NEAR(both.loop.validation.all_slow_latency_us,
              both.unrolled.validation.all_slow_latency_us, 1e-12 * modelled);
  EXPECT_NEAR(both.loop.simulation.latency_us,
              both.unrolled.simulation.latency_us, 1e-12 * modelled);
  EXPECT_NEAR(both.loop.validation.return_us,
              both.unrolled.validation.return_us, 1e-12 * modelled);
  // Serving the temporaries from fast memory saved time on every trip.
  EXPECT_LT(both.loop.validation.latency_us,
            both.loop.validation.all_slow_latency_us);
}

TEST(LoopUnrollTest, PrefetchInsideTheBodyRunsOnEveryTrip) {
  // `b` is written to slow memory and prefetched back for `c`, inside the
  // body: one copy per trip, three in the unrolled program.
  const Comparison both = PlayBoth([](const Buffer& buffer) {
    if (buffer.tensor_name() == "loop/body/b") {
      return buffer.is_output() ? game::Action::kDrop : game::Action::kCopy;
    }
    return IsBodyLocal(buffer) ? game::Action::kNoCopy : game::Action::kDrop;
  });
  EXPECT_EQ(both.loop.simulation.num_prefetches, 1);
  EXPECT_EQ(both.unrolled.simulation.num_prefetches, 3);
  const double simulated = both.unrolled.simulation.latency_us;
  ASSERT_GT(simulated, 0);
  EXPECT_NEAR(both.loop.simulation.latency_us, simulated, 0.005 * simulated);
  EXPECT_NEAR(both.loop.simulation.latency_us, simulated, 1e-12 * simulated);
  EXPECT_GT(both.loop.simulation.dma_busy_us, 0);
  EXPECT_NEAR(both.loop.simulation.dma_busy_us,
              both.unrolled.simulation.dma_busy_us, 1e-12 * simulated);
  EXPECT_NEAR(both.loop.validation.latency_us,
              both.unrolled.validation.latency_us, 1e-12 * simulated);
}

}  // namespace
}  // namespace mmapzero::hlo
