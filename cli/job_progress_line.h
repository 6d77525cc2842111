// One line of a job's progress as `mmapctl watch` and `mmapctl solve
// --solver muzero` print it: time running, state, learner step, games,
// moves per second (between updates, over at least a second), best
// normalised return and a '+' when it just improved.
#ifndef MMAPZERO_CLI_JOB_PROGRESS_LINE_H_
#define MMAPZERO_CLI_JOB_PROGRESS_LINE_H_

#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "proto/job.pb.h"

namespace mmapzero::cli {

// Moves per second from one update to the next, over at least a second.
class MoveRate {
 public:
  double Update(int64_t moves, absl::Time now);

 private:
  absl::Time last_time_ = absl::InfinitePast();
  int64_t last_moves_ = 0;
  double rate_ = 0;
};

std::string JobProgressLine(const v1::JobProgress& progress,
                            double moves_per_second, absl::Time now);

// Prints progress lines at most once a second, except when the state or
// the best changes, and always for a final state.
class JobProgressPrinter {
 public:
  // The line to print for `progress`, or "" when it is not due.
  std::string Next(const v1::JobProgress& progress, absl::Time now);

 private:
  MoveRate rate_;
  absl::Time last_line_ = absl::InfinitePast();
  v1::JobState last_state_ = v1::JOB_STATE_UNSPECIFIED;
};

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_JOB_PROGRESS_LINE_H_
