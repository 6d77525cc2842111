// The pretrained network mmapzero ships: networks/default-cpu.pt, made by
// scripts/pretrain (its recipe and training set in networks/README.md) and
// compiled into every binary that trains or plays, so a job on any
// machine, a container included, starts from it without a file to carry.
// It is a network of the `cpu` preset's sizes and features; jobs of that
// config start from it unless told otherwise (initial_network.h).
#ifndef MMAPZERO_COMMON_TRAINING_DEFAULT_NETWORK_H_
#define MMAPZERO_COMMON_TRAINING_DEFAULT_NETWORK_H_

#include "absl/strings/string_view.h"

namespace mmapzero::training {

// The shipped file's bytes (a network file, network_checkpoint.h).
absl::string_view DefaultNetworkBytes();

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_DEFAULT_NETWORK_H_
