// What MMap-MuZero observes of a game state (paper 4.3.1): a down-sampled
// occupancy map of a time window around the current target time, and one
// flat vector of everything else (current and upcoming buffers' Table 1
// features, occupancy at the target time, the supply window, each action's
// legality / interval / offset, global features). Sizes are fixed by a
// FeatureConfig (proto/muzero.proto), so observations batch into tensors.
#ifndef MMAPZERO_COMMON_FEATURES_OBSERVATION_H_
#define MMAPZERO_COMMON_FEATURES_OBSERVATION_H_

#include <vector>

#include "proto/muzero.pb.h"

namespace mmapzero::features {

struct Observation {
  // Row-major [occupancy_time_bins][occupancy_byte_bins], values in [0, 1].
  std::vector<float> occupancy;
  // VectorSize(config) values, each roughly in [-1, 1] or [0, 1].
  std::vector<float> vector;
};

}  // namespace mmapzero::features

#endif  // MMAPZERO_COMMON_FEATURES_OBSERVATION_H_
