#include "common/workload/loop_nest.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "common/workload/workload_limits.h"

namespace mmapzero {
namespace {

absl::Status LoopError(int index, const char* field, const std::string& what) {
  return absl::InvalidArgumentError(
      absl::StrCat("loops[", index, "].", field, ": ", what));
}

// Loop indices ordered outermost first: by first step, then the longer
// (enclosing) range first.
std::vector<int> OutermostFirst(const Workload& workload) {
  std::vector<int> order(workload.loops_size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const Loop& x = workload.loops(a);
    const Loop& y = workload.loops(b);
    if (x.first_step() != y.first_step()) return x.first_step() < y.first_step();
    return x.last_step() > y.last_step();
  });
  return order;
}

}  // namespace

LoopNest::LoopNest(const Workload& workload) {
  const int num_steps = workload.instructions_size();
  has_loops_ = workload.loops_size() > 0;
  repeat_.assign(num_steps, 1.0);
  innermost_.assign(num_steps, -1);
  run_start_.resize(num_steps);
  run_end_.resize(num_steps);
  // Edge t (between steps t and t + 1) is a boundary when a loop ends at t
  // or starts at t + 1.
  std::vector<char> boundary(num_steps, 0);
  // Outermost first, so an inner loop multiplies an outer one's repeat and
  // overwrites its innermost mark.
  for (int index : OutermostFirst(workload)) {
    const Loop& loop = workload.loops(index);
    for (int t = loop.first_step(); t <= loop.last_step(); ++t) {
      repeat_[t] *= static_cast<double>(loop.trip_count());
      innermost_[t] = index;
    }
    if (loop.first_step() > 0) boundary[loop.first_step() - 1] = 1;
    boundary[loop.last_step()] = 1;
  }
  for (int t = 0; t < num_steps; ++t) {
    run_start_[t] = t > 0 && !boundary[t - 1] ? run_start_[t - 1] : t;
  }
  for (int t = num_steps - 1; t >= 0; --t) {
    run_end_[t] = t + 1 < num_steps && !boundary[t] ? run_end_[t + 1] : t;
  }
}

absl::Status CheckLoops(const Workload& workload) {
  const int num_steps = workload.instructions_size();
  for (int i = 0; i < workload.loops_size(); ++i) {
    const Loop& loop = workload.loops(i);
    if (loop.name().size() > static_cast<size_t>(kMaxNameLength)) {
      return LoopError(i, "name", absl::StrCat("at most ", kMaxNameLength,
                                               " bytes, got ",
                                               loop.name().size()));
    }
    if (loop.trip_count() < 1 || loop.trip_count() > kMaxTripCount) {
      return LoopError(i, "trip_count",
                       absl::StrCat("must be in [1, 2^31], got ",
                                    loop.trip_count()));
    }
    if (loop.first_step() < 0 || loop.first_step() >= num_steps) {
      return LoopError(i, "first_step",
                       absl::StrCat("must be a step in [0, ", num_steps - 1,
                                    "], got ", loop.first_step()));
    }
    if (loop.last_step() < loop.first_step() || loop.last_step() >= num_steps) {
      return LoopError(i, "last_step",
                       absl::StrCat("must be in [first_step ",
                                    loop.first_step(), ", ", num_steps - 1,
                                    "], got ", loop.last_step()));
    }
  }
  // Nested or disjoint: walking outermost first, each loop either starts
  // after the enclosing ones end or ends inside the innermost open one.
  std::vector<int> open;
  for (int index : OutermostFirst(workload)) {
    const Loop& loop = workload.loops(index);
    while (!open.empty() &&
           workload.loops(open.back()).last_step() < loop.first_step()) {
      open.pop_back();
    }
    if (!open.empty() &&
        workload.loops(open.back()).last_step() < loop.last_step()) {
      const Loop& other = workload.loops(open.back());
      return LoopError(
          index, "last_step",
          absl::StrCat(loop.last_step(), " leaves loops[", open.back(),
                       "] (steps ", other.first_step(), "..",
                       other.last_step(),
                       ") that it starts inside: loops must nest or be "
                       "disjoint"));
    }
    open.push_back(index);
  }
  if (workload.loops_size() > 0) {
    const LoopNest nest(workload);
    for (int t = 0; t < num_steps; ++t) {
      if (nest.Repeat(t) > kMaxRepeat) {
        return absl::InvalidArgumentError(absl::StrCat(
            "loops: step ", t, " runs ", nest.Repeat(t),
            " times (the product of its loops' trip counts), more than 1e12"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace mmapzero
