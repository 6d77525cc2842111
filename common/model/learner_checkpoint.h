// Learner checkpoints: one directory holding
//   network.pt     the parameters (network_checkpoint.h, with their sizes),
//   optimizer.pt   Adam's state (moments and per-parameter step counts),
//   replay.bin     the replay snapshot with its sampling generator (absent
//                  for a learner whose replay is a service: null replay),
//   learner.txt    "step <n>", written last.
// Atomicity: everything is written into "<dir>.tmp", then the old
// directory is moved to "<dir>.old", the new one renamed into place and the
// old one removed; a crash between the two renames leaves "<dir>.old",
// which Load falls back to when "<dir>" is missing.
#ifndef MMAPZERO_COMMON_MODEL_LEARNER_CHECKPOINT_H_
#define MMAPZERO_COMMON_MODEL_LEARNER_CHECKPOINT_H_

#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "common/agent/replay_buffer.h"
#include "common/model/networks.h"

namespace mmapzero::model {

absl::Status SaveLearnerCheckpoint(const std::string& dir,
                                   const MuZeroNetwork& network,
                                   torch::optim::Optimizer& optimizer,
                                   int64_t step,
                                   const agent::ReplayBuffer* replay);

// Loads into existing objects of the same sizes (errors name the file);
// a null `replay` leaves any replay.bin unread.
absl::Status LoadLearnerCheckpoint(const std::string& dir,
                                   MuZeroNetwork& network,
                                   torch::optim::Optimizer& optimizer,
                                   int64_t* step, agent::ReplayBuffer* replay);

}  // namespace mmapzero::model

#endif  // MMAPZERO_COMMON_MODEL_LEARNER_CHECKPOINT_H_
