// Conversion between the in-process trajectory (trajectory.h) and its wire
// form, mmapzero.v1.Trajectory (proto/replay.proto): what actors send to the
// replay service and what the learner and reanalyse workers get back.
//
// Reading checks everything a trainer relies on and names the field and
// value on failure (INVALID_ARGUMENT): at least one step, 3 finite
// non-negative policy entries, an action in 0..2, a legal mask in 0..7, a
// non-negative buffer id, finite reward and value, and one occupancy and
// vector size across the steps that carry an observation. Replay windows
// carry the observation of their first step only (replay.proto,
// TrajectoryWindow), hence ObservationRule.
#ifndef MMAPZERO_COMMON_AGENT_TRAJECTORY_PROTO_H_
#define MMAPZERO_COMMON_AGENT_TRAJECTORY_PROTO_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/agent/trajectory.h"
#include "proto/replay.pb.h"

namespace mmapzero::agent {

enum class ObservationRule {
  kEveryStep,      // whole trajectories (insert, reanalyse)
  kFirstStepOnly,  // training windows: later steps have none
};

// Every step with its observation. trajectory_id and targets_version are
// the replay server's business: left 0 / set to parameter_version.
void TrajectoryToProto(const Trajectory& trajectory, v1::Trajectory* out);

// Steps [first, first + count) of `trajectory` (clipped at its end), only
// the first with its observation; the per-game fields are copied.
void WindowToProto(const Trajectory& trajectory, int first, int count,
                   v1::Trajectory* out);

// `field` prefixes error messages ("trajectories[3]").
absl::StatusOr<Trajectory> TrajectoryFromProto(
    const v1::Trajectory& proto, absl::string_view field = "trajectory",
    ObservationRule rule = ObservationRule::kEveryStep);

}  // namespace mmapzero::agent

#endif  // MMAPZERO_COMMON_AGENT_TRAJECTORY_PROTO_H_
