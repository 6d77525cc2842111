// Where the learner service's training batches come from: positions ready
// for Learner::Step(positions) (common/model/learner.h). In the service a
// PrefetchQueue over the replay service's SampleBatch; in unit tests an
// in-process fake.
#ifndef MMAPZERO_WORKER_BATCH_SOURCE_H_
#define MMAPZERO_WORKER_BATCH_SOURCE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/agent/replay_buffer.h"

namespace mmapzero::worker {

// One training batch: each position's trajectory holds at least the steps
// its targets read (a replay window: the position is step 0).
using Batch = std::vector<agent::SampledPosition>;

class BatchSource {
 public:
  virtual ~BatchSource() = default;
  // The next batch, waiting at most `timeout`; DeadlineExceeded (saying
  // why, e.g. the replay's last answer) when none came in time.
  virtual absl::StatusOr<Batch> Next(absl::Duration timeout) = 0;
};

}  // namespace mmapzero::worker

#endif  // MMAPZERO_WORKER_BATCH_SOURCE_H_
