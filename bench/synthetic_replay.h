// A replay of random games for the learner and network benchmarks: what a
// learner step costs does not depend on what the games were, only on their
// observation shape and length.
#ifndef MMAPZERO_BENCH_SYNTHETIC_REPLAY_H_
#define MMAPZERO_BENCH_SYNTHETIC_REPLAY_H_

#include <cstdint>
#include <random>
#include <utility>

#include "common/agent/replay_buffer.h"
#include "common/agent/trajectory.h"
#include "common/model/networks.h"

namespace mmapzero::model {

// Inserts `trajectories` random games of `length` steps of `shape` into
// `replay` (seeded: the same games every run).
inline void FillSyntheticReplay(const ObservationShape& shape,
                                int trajectories, int length,
                                agent::ReplayBuffer* replay) {
  std::mt19937_64 rng(1);
  const int cells = shape.time_bins * shape.byte_bins;
  for (int g = 0; g < trajectories; ++g) {
    agent::Trajectory t;
    for (int i = 0; i < length; ++i) {
      agent::TrajectoryStep s;
      s.observation.occupancy.resize(cells);
      for (uint8_t& c : s.observation.occupancy) c = rng() & 0xff;
      s.observation.vector.resize(shape.vector_size);
      for (float& v : s.observation.vector) v = (rng() % 1000) / 1000.0f;
      s.action = rng() % kNumActions;
      s.legal_mask = 7;
      s.reward = (rng() % 100) / 50.0f - 1;
      s.root_value = (rng() % 1000) / 100.0f;
      s.policy = {0.5f, 0.3f, 0.2f};
      t.steps.push_back(std::move(s));
    }
    replay->Insert(std::move(t));
  }
}

}  // namespace mmapzero::model

#endif  // MMAPZERO_BENCH_SYNTHETIC_REPLAY_H_
