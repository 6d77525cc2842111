// Hand-made trajectories for the replay tests: step i has buffer i, reward
// -i, root value i / 10, policy {i, 1, 0} (unnormalised: the table never
// looks), occupancy bytes of value i and a vector of `vector_size` copies
// of i, so any step is recognisable by its values.
#ifndef MMAPZERO_REPLAY_TEST_TRAJECTORIES_H_
#define MMAPZERO_REPLAY_TEST_TRAJECTORIES_H_

#include <cstdint>

#include "common/agent/trajectory.h"
#include "common/agent/trajectory_proto.h"
#include "proto/replay.pb.h"

namespace mmapzero::replay {

inline agent::Trajectory MakeTrajectory(int steps, int occupancy_size = 4,
                                        int vector_size = 2,
                                        int64_t parameter_version = 7) {
  agent::Trajectory t;
  t.parameter_version = parameter_version;
  t.episode_return = -1.0 * steps;
  t.normalised_return = 0.5;
  for (int i = 0; i < steps; ++i) {
    agent::TrajectoryStep step;
    step.observation.occupancy.assign(occupancy_size,
                                      static_cast<uint8_t>(i % 256));
    step.observation.vector.assign(vector_size, static_cast<float>(i));
    step.buffer = i;
    step.action = static_cast<uint8_t>(i % 3);
    step.legal_mask = 7;
    step.reward = -static_cast<float>(i);
    step.root_value = static_cast<float>(i) / 10;
    step.policy = {static_cast<float>(i), 1.0f, 0.0f};
    t.steps.push_back(step);
  }
  return t;
}

inline v1::Trajectory MakeProto(int steps, int occupancy_size = 4,
                                int vector_size = 2) {
  v1::Trajectory proto;
  agent::TrajectoryToProto(MakeTrajectory(steps, occupancy_size, vector_size),
                           &proto);
  return proto;
}

}  // namespace mmapzero::replay

#endif  // MMAPZERO_REPLAY_TEST_TRAJECTORIES_H_
