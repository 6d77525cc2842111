// One learner step's losses as plain numbers (Learner::Step's result), in
// a header of their own so that what only reports them (the learner
// service's metrics, logs) does not include LibTorch through learner.h.
#ifndef MMAPZERO_COMMON_TRAINING_LEARNER_STATS_H_
#define MMAPZERO_COMMON_TRAINING_LEARNER_STATS_H_

#include <cstdint>

namespace mmapzero::training {

struct LearnerStats {
  int64_t step = 0;  // after this step
  double total = 0;
  double value = 0;
  double reward = 0;
  double policy = 0;
};

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_LEARNER_STATS_H_
