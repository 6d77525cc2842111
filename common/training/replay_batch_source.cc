#include "common/training/replay_batch_source.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/time/clock.h"

namespace mmapzero::training {
namespace {

// How often Next looks at an empty replay again.
constexpr absl::Duration kEmptyPoll = absl::Milliseconds(10);

}  // namespace

ReplayBatchSource::ReplayBatchSource(const TrainingConfig& training,
                                     agent::ReplayBuffer* replay,
                                     Reanalyser* reanalyser,
                                     int64_t first_batch)
    : training_(training),
      replay_(replay),
      reanalyser_(reanalyser),
      next_batch_(first_batch) {}

absl::StatusOr<agent::Batch> ReplayBatchSource::Next(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (replay_->size() == 0) {
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(
          "the replay holds no game yet (self-play has not finished one)");
    }
    absl::SleepFor(std::min(kEmptyPoll, deadline - absl::Now()));
  }
  agent::Batch batch = replay_->Sample(training_.batch_size());
  const absl::Status reanalysed = Reanalyse(&batch);
  ++next_batch_;
  if (!reanalysed.ok()) return reanalysed;
  return batch;
}

absl::Status ReplayBatchSource::Reanalyse(agent::Batch* batch) {
  if (reanalyser_ == nullptr || training_.reanalyse_fraction() <= 0) {
    return absl::OkStatus();
  }
  const int count = static_cast<int>(
      std::lround(training_.reanalyse_fraction() * batch->size()));
  const int window = training_.unroll_steps() + training_.td_steps() + 1;
  for (int b = 0; b < count; ++b) {
    agent::SampledPosition& p = (*batch)[b];
    const absl::Status status =
        reanalyser_->Refresh(p.id, p.step, p.step + window,
                             static_cast<uint64_t>(next_batch_) * 1000003u + b);
    if (status.code() == absl::StatusCode::kNotFound) continue;  // evicted
    if (!status.ok()) return status;
    if (auto fresh = replay_->Get(p.id)) p.trajectory = std::move(fresh);
    ++reanalysed_;
  }
  return absl::OkStatus();
}

}  // namespace mmapzero::training
