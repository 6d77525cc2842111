// A job's starting network (TrainingConfig.initial_network): the network
// file a learner or the in-process solver loads before its first step, so
// that a job starts from what an earlier job learned instead of from a
// fresh network (a warm start). The file must be a network of the job's
// sizes and feature hash (network_checkpoint.h refuses another).
#ifndef MMAPZERO_COMMON_TRAINING_INITIAL_NETWORK_H_
#define MMAPZERO_COMMON_TRAINING_INITIAL_NETWORK_H_

#include "absl/status/status.h"
#include "common/model/networks.h"
#include "proto/muzero.pb.h"

namespace mmapzero::training {

// Loads training.initial_network into `network`; nothing when it is "".
// The error names the field and the file: NotFound when it cannot be
// read, InvalidArgument / FailedPrecondition for other sizes or another
// feature hash (the network is then unchanged).
absl::Status LoadInitialNetwork(const TrainingConfig& training,
                                model::MuZeroNetwork& network);

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_INITIAL_NETWORK_H_
