// Network checkpoints: the parameters of a MuZeroNetwork in one LibTorch
// archive file, with the NetworkConfig and ObservationShape that built it
// stored inside the same archive, so a checkpoint can rebuild its network and
// a load into a differently sized network fails with the mismatching field
// named instead of a shape error deep in LibTorch. Files are written through
// a temporary file renamed into place (a reader never sees half a file).
//
// The same archive in memory ("torch-archive-v1") is what the learner
// publishes through ParameterService and actors / reanalysers load
// (docs/protocols.md): the sizes travel with the parameters, so a snapshot
// of another network size is refused with the field named. Every load is
// all or nothing: the archive goes into a network of the same sizes first
// and is copied in only when each tensor has the shape, type and finite
// values of the network's (LibTorch alone would replace tensors one by one
// without checking shapes). LibTorch's own zip and TorchScript reader can
// crash on damaged bytes, so bytes must reach it intact (TLS on the wire,
// checksums on disk: learner_checkpoint.h).
#ifndef MMAPZERO_COMMON_MODEL_NETWORK_CHECKPOINT_H_
#define MMAPZERO_COMMON_MODEL_NETWORK_CHECKPOINT_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/model/networks.h"
#include "proto/muzero.pb.h"

namespace mmapzero::model {

// The sizes stored in a checkpoint, with the feature hash of the
// observations the network was built for (ObservationShape.feature_hash).
struct CheckpointHeader {
  NetworkConfig config;
  ObservationShape shape;
};

absl::Status SaveCheckpoint(const MuZeroNetwork& network,
                            const std::string& path);

// Reads only the stored sizes.
absl::StatusOr<CheckpointHeader> ReadCheckpointHeader(const std::string& path);

// Loads into an existing network; InvalidArgument naming the file and the
// field when the stored sizes differ from the network's, FailedPrecondition
// when its feature hash or file version does.
absl::Status LoadCheckpoint(const std::string& path, MuZeroNetwork& network);

// Builds a network of the stored sizes on `device` and loads it.
absl::StatusOr<MuZeroNetwork> LoadNetworkFromCheckpoint(
    const std::string& path, torch::Device device = DefaultDevice());

// The version every network file and parameter archive carries. A reader
// refuses another (FailedPrecondition, naming both); files of version 1
// have no version and no feature hash.
inline constexpr int kNetworkFileVersion = 2;

// ParameterVersion.format of SerializeNetworkParameters' bytes.
inline constexpr char kNetworkParametersFormat[] = "torch-archive-v1";

// The checkpoint archive in memory (parameters, buffers and sizes).
absl::StatusOr<std::string> SerializeNetworkParameters(
    const MuZeroNetwork& network);

// Loads bytes of SerializeNetworkParameters into an existing network (on
// its device). InvalidArgument naming the field when the stored sizes
// differ; DataLoss when the bytes are not such an archive.
absl::Status LoadNetworkParameters(absl::string_view bytes,
                                   MuZeroNetwork& network);

}  // namespace mmapzero::model

#endif  // MMAPZERO_COMMON_MODEL_NETWORK_CHECKPOINT_H_
