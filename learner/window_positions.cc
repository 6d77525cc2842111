#include "learner/window_positions.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/agent/trajectory_proto.h"

namespace mmapzero::learner {

absl::StatusOr<agent::Batch> PositionsFromWindows(
    const v1::SampleBatchResponse& response) {
  agent::Batch batch;
  batch.reserve(response.windows_size());
  for (int w = 0; w < response.windows_size(); ++w) {
    const v1::TrajectoryWindow& window = response.windows(w);
    absl::StatusOr<agent::Trajectory> trajectory = agent::TrajectoryFromProto(
        window.window(), absl::StrCat("replay: windows[", w, "].window"),
        agent::ObservationRule::kFirstStepOnly);
    if (!trajectory.ok()) return trajectory.status();
    batch.push_back(
        {static_cast<int64_t>(window.trajectory_id()), 0,
         std::make_shared<const agent::Trajectory>(*std::move(trajectory))});
  }
  return batch;
}

}  // namespace mmapzero::learner
