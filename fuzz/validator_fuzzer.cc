// Fuzzes the independent validator and the latency simulator with
// solutions that are almost right: the heuristic's valid solution of
// examples/small.json with the decisions' fields rewritten as the input
// says (each 6-byte record: which decision, which field, a 32-bit value).
// Whatever the solution, the validator gives a report and the simulator a
// result or an error, never a crash; a solution the validator accepts
// simulates.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "common/validate/latency_simulator.h"
#include "common/workload/proto_io.h"
#include "fuzz/fuzz_util.h"

namespace {

using namespace mmapzero;

const Workload& SmallWorkload() {
  static const Workload* workload = new Workload(
      *ReadWorkload(MMAPZERO_SOURCE_DIR "/examples/small.json"));
  return *workload;
}

const Solution& HeuristicSolution() {
  static const Solution* solution = [] {
    auto program = game::Program::Create(SmallWorkload());
    auto solver = solvers::MakeSolver("heuristic", {});
    return new Solution(*(*solver)->Solve(*program, {}));
  }();
  return *solution;
}

void Rewrite(BufferDecision& d, uint8_t field, int32_t value) {
  switch (field % 10) {
    case 0: d.set_buffer_id(value); break;
    case 1: d.set_action(static_cast<Action>(value % 4)); break;
    case 2: d.set_offset(value); break;
    case 3: d.set_offset(int64_t{value} << 31); break;
    case 4: d.clear_offset(); d.clear_interval_start(); break;
    case 5: d.set_interval_start(value); break;
    case 6: d.set_interval_end(value); break;
    case 7: d.set_copy_start(value); break;
    case 8: d.set_copy_end(value); break;
    default: d.clear_copy_start(); d.clear_copy_end(); break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Solution solution = HeuristicSolution();
  auto& decisions = *solution.mutable_decisions();
  for (size_t at = 0; at + 6 <= size; at += 6) {
    uint8_t which = data[at], field = data[at + 1];
    int32_t value;
    std::memcpy(&value, data + at + 2, sizeof(value));
    if (decisions.empty()) break;
    if (field >= 250) {  // reorder, drop or repeat a decision
      const int i = which % decisions.size();
      const int j = static_cast<int>(static_cast<uint32_t>(value) %
                                     static_cast<uint32_t>(decisions.size()));
      if (field == 250) decisions.SwapElements(i, j);
      if (field == 251) decisions.DeleteSubrange(i, 1);
      if (field == 252) *decisions.Add() = decisions.Get(i);
      continue;
    }
    Rewrite(decisions[which % decisions.size()], field, value);
  }
  const validate::ValidationReport report =
      validate::ValidateSolution(SmallWorkload(), solution);
  const auto simulated = validate::SimulateSolution(SmallWorkload(), solution);
  if (report.ok) fuzz::Require(simulated.ok());
  return 0;
}
