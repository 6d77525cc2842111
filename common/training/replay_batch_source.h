// The in-process solver's batches: sampled from the replay in memory
// (agent::ReplayBuffer, the self-play games of this process), the first
// round(training.reanalyse_fraction * batch_size) positions of each
// re-searched with the learner's current network before they are trained
// on (MuZero Reanalyze, reanalyser.h: the window of steps their targets
// read, i .. i + K + n, written back into the replay, so later batches
// reuse the fresh targets). The learner service takes its batches from the
// replay service instead (worker/prefetch_queue.h), where the reanalyse
// service refreshes targets.
//
// Thread-safety: Next runs on the training thread (the reanalyser reads
// the learner's network); the replay may be filled concurrently.
#ifndef MMAPZERO_COMMON_TRAINING_REPLAY_BATCH_SOURCE_H_
#define MMAPZERO_COMMON_TRAINING_REPLAY_BATCH_SOURCE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/agent/batch_source.h"
#include "common/agent/replay_buffer.h"
#include "common/training/reanalyser.h"
#include "proto/muzero.pb.h"

namespace mmapzero::training {

class ReplayBatchSource final : public agent::BatchSource {
 public:
  // `replay` and `reanalyser` (null: no reanalysis) are not owned and
  // outlive the source. `first_batch` numbers the first batch (the learner
  // step a run starts from): batch b reanalyses position i with seed
  // b * 1000003 + i.
  ReplayBatchSource(const TrainingConfig& training, agent::ReplayBuffer* replay,
                    Reanalyser* reanalyser, int64_t first_batch);

  // A batch of training.batch_size positions once the replay holds a game;
  // DeadlineExceeded when it stayed empty for `timeout`; a reanalysis
  // error other than an evicted trajectory.
  absl::StatusOr<agent::Batch> Next(absl::Duration timeout) override;

  // Positions refreshed so far.
  int64_t reanalysed() const { return reanalysed_; }

 private:
  // Re-searches the first round(reanalyse_fraction * size) positions of
  // `batch` and points them at their refreshed trajectories.
  absl::Status Reanalyse(agent::Batch* batch);

  const TrainingConfig training_;
  agent::ReplayBuffer* const replay_;
  Reanalyser* const reanalyser_;
  int64_t next_batch_;
  int64_t reanalysed_ = 0;
};

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_REPLAY_BATCH_SOURCE_H_
