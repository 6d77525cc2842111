// Where a training loop stands (TrainingLoop::progress), as plain values,
// in a header of their own so that what only reports progress (the learner
// service's worker and config) does not include LibTorch through
// training_loop.h.
#ifndef MMAPZERO_COMMON_TRAINING_TRAINING_PROGRESS_H_
#define MMAPZERO_COMMON_TRAINING_TRAINING_PROGRESS_H_

#include <cstdint>
#include <map>
#include <string>

#include "common/training/demonstrations.h"

namespace mmapzero::training {

// Where the loop stands; a copy.
struct TrainingProgress {
  int64_t step = 0;
  int64_t parameter_version = -1;        // last published
  std::map<std::string, double> losses;  // "total", "value", ...
  int64_t skipped_batches = 0;
  int64_t checkpoints = 0;
  bool finished = false;    // max_steps reached
  bool stopped = false;     // Run has returned
  std::string batch_error;  // the last refused batch, or wait
  std::string
      checkpoint_error;  // the last failed checkpoint; "" after a good one
  // Non-empty: a learner with a newer lease claimed the checkpoints.
  std::string fenced;
  DemonstrationStats demonstrations;
};

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_TRAINING_PROGRESS_H_
