// Network checkpoints: the parameters of a MuZeroNetwork in one LibTorch
// archive file, with the NetworkConfig and ObservationShape that built it
// stored inside the same archive, so a checkpoint can rebuild its network and
// a load into a differently sized network fails with the mismatching field
// named instead of a shape error deep in LibTorch. Files are written through
// a temporary file renamed into place (a reader never sees half a file).
#ifndef MMAPZERO_COMMON_MODEL_NETWORK_CHECKPOINT_H_
#define MMAPZERO_COMMON_MODEL_NETWORK_CHECKPOINT_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/model/networks.h"
#include "proto/muzero.pb.h"

namespace mmapzero::model {

// The sizes stored in a checkpoint.
struct CheckpointHeader {
  NetworkConfig config;
  ObservationShape shape;
};

absl::Status SaveCheckpoint(const MuZeroNetwork& network,
                            const std::string& path);

// Reads only the stored sizes.
absl::StatusOr<CheckpointHeader> ReadCheckpointHeader(const std::string& path);

// Loads into an existing network; InvalidArgument naming the file and the
// field when the stored sizes differ from the network's.
absl::Status LoadCheckpoint(const std::string& path, MuZeroNetwork& network);

// Builds a network of the stored sizes on `device` and loads it.
absl::StatusOr<MuZeroNetwork> LoadNetworkFromCheckpoint(
    const std::string& path, torch::Device device = DefaultDevice());

}  // namespace mmapzero::model

#endif  // MMAPZERO_COMMON_MODEL_NETWORK_CHECKPOINT_H_
