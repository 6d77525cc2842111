// An upper bound on a workload's best return from a linear relaxation of
// the game that ignores offsets, solved with COIN-OR CLP (Debian's
// coinor-libclp-dev). No valid solution returns more (docs/benchmarks.md,
// "How far from the optimum"); the gap between a solution and the bound is
// at most how much better any solution could be.
//
// The relaxation keeps, per buffer, the fractions of it served from fast
// memory by Copy (when its copy fits the supply: an operand's before its
// use, an output's write-back after it) and by NoCopy, and:
//  - what an instruction can save: at most the sum over its fast buffers of
//    each buffer's largest marginal saving (the standalone saving for
//    roofline and static latencies, the largest over the measured table's
//    subsets otherwise), and at most its all-fast saving;
//  - capacity at every step: the bytes held then fit `memory_size`. An
//    operand's copy holds its bytes from the copy's start to its use; a
//    tensor's chain of allocations (its output, resident over its live
//    range or written back, and the NoCopy extensions of it up to each
//    later use) counts once at a step however many of its buffers hold it,
//    and so does an alias group's shared allocation (whose members are all
//    fast or all slow together); spans are counted over at most 65 steps;
//  - copies, followed step by step over a window next to each use (the
//    whole program on small ones, narrower on large ones, further out in
//    aggregate): each step's supply shared by the copies drawing on it,
//    and at most one copy interval holding any two adjacent steps (copy
//    intervals share at most one step);
//  - NoCopy of an operand only as far as an earlier buffer of its tensor is
//    fast;
//  - the demand of operands copied for uses up to step t at most the supply
//    of the steps before t.
// Every valid solution satisfies all of these, so the optimum of the
// relaxation bounds the game's optimum from above (bound_test.cc checks it
// against thousands of games).
#ifndef MMAPZERO_COMMON_BOUND_LP_BOUND_H_
#define MMAPZERO_COMMON_BOUND_LP_BOUND_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "proto/workload.pb.h"

namespace mmapzero::bound {

struct LpBound {
  double return_us = 0;           // the bound on the return
  double normalised_return = 0;   // the same over the all-fast saving
  int64_t columns = 0;            // the relaxation's size
  int64_t rows = 0;
  int64_t nonzeros = 0;
};

struct LpOptions {
  // > 0: the solver stops after this much CPU time (CLP's clock) with
  // DeadlineExceeded: a relaxation stopped early bounds nothing.
  double max_seconds = 0;
  // Non-empty: the relaxation is also written here as free MPS, for other
  // LP solvers: its objective is the return in microseconds, to be
  // maximised (the file has no sense section: `glpsol --freemps F --max`).
  std::string mps_path;
};

// `workload` must pass CheckWorkload. Internal when the solver does not
// reach an optimum or the MPS file cannot be written.
absl::StatusOr<LpBound> SolveLpBound(const Workload& workload,
                                     const LpOptions& options = {});

}  // namespace mmapzero::bound

#endif  // MMAPZERO_COMMON_BOUND_LP_BOUND_H_
