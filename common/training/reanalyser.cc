#include "common/training/reanalyser.h"

#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

namespace mmapzero::training {

absl::StatusOr<std::unique_ptr<Reanalyser>> Reanalyser::Create(
    const SearchConfig& search, model::MuZeroNetwork network,
    agent::ReplayBuffer* replay) {
  return std::unique_ptr<Reanalyser>(
      new Reanalyser(search, std::move(network), replay));
}

Reanalyser::Reanalyser(const SearchConfig& search, model::MuZeroNetwork network,
                       agent::ReplayBuffer* replay)
    : replay_(replay), search_(search, std::move(network)) {}

absl::Status Reanalyser::Refresh(int64_t id, int first, int last,
                                 uint64_t seed) {
  std::shared_ptr<const agent::Trajectory> trajectory = replay_->Get(id);
  if (trajectory == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("reanalyse: trajectory ", id, " is not stored"));
  }
  absl::StatusOr<std::vector<agent::StepTargets>> targets =
      search_.Search(*trajectory, first, last, seed);
  if (!targets.ok()) {
    return absl::Status(targets.status().code(),
                        absl::StrCat("reanalyse trajectory ", id, " from step ",
                                     first, ": ", targets.status().message()));
  }
  if (targets->empty()) return absl::OkStatus();
  RETURN_IF_ERROR(replay_->UpdateTargets(id, *targets));
  refreshed_steps_ += static_cast<int64_t>(targets->size());
  return absl::OkStatus();
}

absl::Status Reanalyser::RefreshSampled(int positions, uint64_t seed) {
  for (const agent::SampledPosition& p : replay_->Sample(positions)) {
    const absl::Status status = Refresh(p.id, p.step, p.step + 1, seed++);
    if (!status.ok() && status.code() != absl::StatusCode::kNotFound) {
      return status;
    }
  }
  return absl::OkStatus();
}

void Reanalyser::Run(std::stop_token stop, int positions_per_round) {
  while (!stop.stop_requested()) {
    if (replay_->total_steps() == 0 ||
        !RefreshSampled(positions_per_round, rounds_ * 1000003).ok()) {
      // Nothing to do yet (or a broken replay): avoid spinning hot.
      std::this_thread::yield();
    }
    ++rounds_;
  }
}

}  // namespace mmapzero::training
