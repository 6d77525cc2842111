// Where a learner's training batches come from: positions ready for
// Learner::Step (common/training/learner.h), taken by the training loop
// (common/training/training_loop.h). In the learner service a PrefetchQueue
// over the replay service's SampleBatch (worker/prefetch_queue.h); in the
// in-process solver the replay in memory, with reanalysis
// (common/training/replay_batch_source.h).
#ifndef MMAPZERO_COMMON_AGENT_BATCH_SOURCE_H_
#define MMAPZERO_COMMON_AGENT_BATCH_SOURCE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/agent/replay_buffer.h"

namespace mmapzero::agent {

// One training batch: each position's trajectory holds at least the steps
// its targets read (a replay window: the position is step 0).
using Batch = std::vector<SampledPosition>;

class BatchSource {
 public:
  virtual ~BatchSource() = default;
  // The next batch, waiting at most `timeout`; DeadlineExceeded (saying
  // why, e.g. the replay's last answer) when none came in time.
  virtual absl::StatusOr<Batch> Next(absl::Duration timeout) = 0;
};

}  // namespace mmapzero::agent

#endif  // MMAPZERO_COMMON_AGENT_BATCH_SOURCE_H_
