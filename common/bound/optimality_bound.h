// How good can a solution of this workload be? An upper bound on its best
// normalised return: the exact optimum by exhaustive search when the
// program is small enough (exact_optimum.h), else the optimum of a linear
// relaxation (lp_bound.h). A solution's gap to it says at most how much
// better any solution could do.
#ifndef MMAPZERO_COMMON_BOUND_OPTIMALITY_BOUND_H_
#define MMAPZERO_COMMON_BOUND_OPTIMALITY_BOUND_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "proto/workload.pb.h"

namespace mmapzero::bound {

struct BoundOptions {
  // Exhaustive search for programs of at most this many buffers, and at
  // most this many moves (about a second); else, or past it, the LP.
  int exact_max_buffers = 16;
  int64_t exact_max_moves = 2'000'000;
  // The LP's time limit in seconds; 0: none. Past it, DeadlineExceeded.
  double max_seconds = 0;
  // Non-empty: the LP relaxation, when it is solved, is also written here
  // as free MPS (lp_bound.h).
  std::string lp_file;
};

struct OptimalityBound {
  double return_us = 0;          // no valid solution returns more
  double normalised_return = 0;  // the same, normalised as solutions are
  bool exact = false;            // the optimum itself, not a relaxation
  std::string method;            // "exhaustive search" or "LP relaxation"
  std::string details;           // moves searched, or the LP's size
  double seconds = 0;            // time it took
};

// InvalidArgument (naming the field) for a workload that fails
// CheckWorkload; DeadlineExceeded when the LP passes options.max_seconds;
// Internal when the LP solver fails.
absl::StatusOr<OptimalityBound> ComputeBound(const Workload& workload,
                                             const BoundOptions& options = {});

}  // namespace mmapzero::bound

#endif  // MMAPZERO_COMMON_BOUND_OPTIMALITY_BOUND_H_
