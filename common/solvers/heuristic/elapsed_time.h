// Elapsed compute time between logical time steps, the yardstick of XLA's
// cost-analysis prefetch interval picker: every ratio compares the compute
// time a copy (or a resident gap) spans with the buffer's copy time. The
// time of step t is its supply (L_t with all buffers fast): the computation
// a copy can hide under, the same quantity the engine's copy rule spends.
#ifndef MMAPZERO_COMMON_SOLVERS_HEURISTIC_ELAPSED_TIME_H_
#define MMAPZERO_COMMON_SOLVERS_HEURISTIC_ELAPSED_TIME_H_

#include <cstdint>
#include <vector>

#include "common/game/program.h"

namespace mmapzero::solvers {

class ElapsedTime {
 public:
  explicit ElapsedTime(std::vector<double> step_us);
  static ElapsedTime FromSupply(const game::Program& program);

  int32_t num_steps() const { return static_cast<int32_t>(prefix_.size()) - 1; }
  // Time of the steps [first, last), us; 0 when last <= first.
  double Between(int32_t first, int32_t last) const;
  // The latest s in [lower, use] with Between(s, use) >= target_us, or
  // lower when even [lower, use) falls short.
  int32_t LatestStartCovering(int32_t use, double target_us,
                              int32_t lower) const;
  // The earliest s in [lower, use] with Between(s, use) <= limit_us.
  int32_t EarliestStartWithin(int32_t use, double limit_us,
                              int32_t lower) const;

 private:
  std::vector<double> prefix_;  // prefix_[t] = time of steps [0, t)
};

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_HEURISTIC_ELAPSED_TIME_H_
