#include "common/solvers/heuristic/elapsed_time.h"

#include <algorithm>
#include <utility>

namespace mmapzero::solvers {

ElapsedTime::ElapsedTime(std::vector<double> step_us) {
  prefix_.assign(step_us.size() + 1, 0.0);
  for (size_t t = 0; t < step_us.size(); ++t) {
    prefix_[t + 1] = prefix_[t] + std::max(0.0, step_us[t]);
  }
}

ElapsedTime ElapsedTime::FromSupply(const game::Program& program) {
  std::vector<double> steps(program.num_steps());
  for (int32_t t = 0; t < program.num_steps(); ++t) {
    steps[t] = program.instruction(t).supply_us;
  }
  return ElapsedTime(std::move(steps));
}

double ElapsedTime::Between(int32_t first, int32_t last) const {
  if (last <= first) return 0;
  return prefix_[last] - prefix_[first];
}

// Between(s, use) falls as s rises, so both searches are binary searches
// over s on the prefix sums.
int32_t ElapsedTime::LatestStartCovering(int32_t use, double target_us,
                                         int32_t lower) const {
  lower = std::max(lower, 0);
  if (Between(lower, use) < target_us) return lower;
  int32_t lo = lower, hi = use;  // Between(lo, use) >= target holds
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo + 1) / 2;
    if (Between(mid, use) >= target_us) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

int32_t ElapsedTime::EarliestStartWithin(int32_t use, double limit_us,
                                         int32_t lower) const {
  lower = std::max(lower, 0);
  int32_t lo = lower, hi = use;  // Between(hi, use) = 0 <= limit holds
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (Between(mid, use) <= limit_us) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

}  // namespace mmapzero::solvers
