// Learner checkpoints: one directory holding
//   network.pt     the parameters (network_checkpoint.h, with their sizes),
//   optimizer.pt   Adam's state (moments and per-parameter step counts),
//   replay.bin     the replay snapshot with its sampling generator (absent
//                  for a learner whose replay is a service: null replay),
//   learner.txt    "step <n>", "epoch <e>" (the lease epoch of the learner
//                  that wrote it, lease_fence.h; absent when 0), then "file
//                  <name> <bytes> <fnv1a-64 hex>" for each file above: written
//                  last, it vouches for the rest.
// Durability: everything is written and flushed (fsync) into "<dir>.tmp";
// the previous checkpoint moves to "<dir>.old", the new one is renamed into
// place and the parent folder flushed. The previous one is kept: Load falls
// back to "<dir>.old" when "<dir>" is missing, torn (a size or checksum
// that does not match) or unreadable, and says so in `note`. After such a
// fallback the damaged one is set aside as "<dir>.damaged-N" (never
// replacing an earlier one) and the good one moves back to "<dir>", so the
// next save keeps it as "<dir>.old": the last good checkpoint is never the
// one a save deletes.
#ifndef MMAPZERO_COMMON_TRAINING_LEARNER_CHECKPOINT_H_
#define MMAPZERO_COMMON_TRAINING_LEARNER_CHECKPOINT_H_

#include <torch/torch.h>

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "common/agent/replay_buffer.h"
#include "common/model/networks.h"

namespace mmapzero::training {

absl::Status SaveLearnerCheckpoint(const std::string& dir,
                                   const model::MuZeroNetwork& network,
                                   torch::optim::Optimizer& optimizer,
                                   int64_t step,
                                   const agent::ReplayBuffer* replay,
                                   int64_t lease_epoch = 0);

// Loads into existing objects of the same sizes (errors name the file);
// a null `replay` leaves any replay.bin unread. When the newest checkpoint
// is damaged and the previous one loads, `note` (if given) says why the
// newest was passed over and where it was set aside; it is left empty
// otherwise. `lease_epoch` (if
// given) gets the epoch the loaded checkpoint was written under.
absl::Status LoadLearnerCheckpoint(const std::string& dir,
                                   model::MuZeroNetwork& network,
                                   torch::optim::Optimizer& optimizer,
                                   int64_t* step, agent::ReplayBuffer* replay,
                                   std::string* note = nullptr,
                                   int64_t* lease_epoch = nullptr);

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_LEARNER_CHECKPOINT_H_
