#include "common/agent/trajectory.h"

#include <algorithm>
#include <cmath>

namespace mmapzero::agent {

CompactObservation Compact(const features::Observation& observation) {
  CompactObservation compact;
  compact.occupancy.resize(observation.occupancy.size());
  for (size_t i = 0; i < observation.occupancy.size(); ++i) {
    const float v = std::clamp(observation.occupancy[i], 0.0f, 1.0f);
    compact.occupancy[i] = static_cast<uint8_t>(std::lround(v * 255.0f));
  }
  compact.vector = observation.vector;
  return compact;
}

void Expand(const CompactObservation& compact, features::Observation* out) {
  out->occupancy.resize(compact.occupancy.size());
  for (size_t i = 0; i < compact.occupancy.size(); ++i) {
    out->occupancy[i] = static_cast<float>(compact.occupancy[i]) / 255.0f;
  }
  out->vector = compact.vector;
}

}  // namespace mmapzero::agent
