// Where one learner job stands (LearnerJob::progress, LearnerWorker::Jobs),
// in a header of its own so that the worker, its config and main do not
// include LibTorch through learner_job.h.
#ifndef MMAPZERO_LEARNER_LEARNER_PROGRESS_H_
#define MMAPZERO_LEARNER_LEARNER_PROGRESS_H_

#include <cstdint>
#include <string>

#include "common/training/training_progress.h"

namespace mmapzero::learner {

// Where a learner job stands; a copy. The loop's progress, and:
struct LearnerProgress : training::TrainingProgress {
  int64_t resumed_step = 0;  // the step training started from
  // Non-empty when the newest checkpoint was damaged at the start and the
  // job resumed from an older one or afresh: why, and from what.
  std::string checkpoint_fallback;
  // What ended the thread when something escaped it (crash_guard.h); the
  // worker reports it as the job's fatal error.
  std::string fatal_error;
};

}  // namespace mmapzero::learner

#endif  // MMAPZERO_LEARNER_LEARNER_PROGRESS_H_
