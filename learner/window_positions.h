// The replay service's SampleBatch answer as training positions: each
// TrajectoryWindow (steps [start, start + K + n] of one game, clipped at
// its end; only the first step with its observation) becomes a trajectory
// of those steps whose step 0 is the position, which gives the targets of
// the whole game (common/training/learner.h, Step(positions)). The fields are
// checked by common/agent/trajectory_proto.h, so a bad window is refused
// with the field named instead of failing a CHECK; the observation's sizes
// against the network's by Learner::Step.
#ifndef MMAPZERO_LEARNER_WINDOW_POSITIONS_H_
#define MMAPZERO_LEARNER_WINDOW_POSITIONS_H_

#include "absl/status/statusor.h"
#include "common/agent/batch_source.h"
#include "proto/replay.pb.h"

namespace mmapzero::learner {

// InvalidArgument naming the field ("windows[2].window.steps[0].policy")
// and its value.
absl::StatusOr<agent::Batch> PositionsFromWindows(
    const v1::SampleBatchResponse& response);

}  // namespace mmapzero::learner

#endif  // MMAPZERO_LEARNER_WINDOW_POSITIONS_H_
