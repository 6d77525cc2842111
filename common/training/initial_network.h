// The network a job starts from (TrainingConfig.initial_network, the
// `network` setting of `solve`): the network a learner or the in-process
// solver loads before its first step, and the one `--solver policy`
// plays. By default that is the pretrained network mmapzero ships
// (default_network.h) wherever it fits the job's config, so a job starts
// from what pretraining learned instead of from nothing; "none" asks for
// a fresh network, a file's path for an earlier job's network (a warm
// start). A network must have the job's sizes and feature hash
// (network_checkpoint.h refuses another).
#ifndef MMAPZERO_COMMON_TRAINING_INITIAL_NETWORK_H_
#define MMAPZERO_COMMON_TRAINING_INITIAL_NETWORK_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/features/config_presets.h"
#include "common/model/networks.h"
#include "proto/muzero.pb.h"

namespace mmapzero::training {

// Loads the network `name` names into `network`: a file's path; "default"
// (features::kDefaultNetwork: the shipped network); "none"
// (features::kNoNetwork: nothing, the network stays as built);
// "" (the shipped network where it fits `network`'s sizes and feature
// hash, else nothing). Returns what the network now is: the path,
// "default" or "none". A coordinator's copy ("sha256:...", which a job's
// learner fetched) loads from `fetched`. Errors name the file: NotFound
// when it cannot be read (a registered name or a job id with no such
// file says where such networks live), InvalidArgument /
// FailedPrecondition for other sizes or another feature hash (the network
// is then unchanged), FailedPrecondition for a copy not fetched.
absl::StatusOr<std::string> LoadNetworkByName(const std::string& name,
                                              model::MuZeroNetwork& network,
                                              absl::string_view fetched = {});

// LoadNetworkByName(training.initial_network, ..., fetched), errors
// naming the field; with training.initial_policy_uniform, a loaded
// network's policy head is then zeroed (a uniform prior).
absl::StatusOr<std::string> LoadInitialNetwork(const TrainingConfig& training,
                                               model::MuZeroNetwork& network,
                                               absl::string_view fetched = {});

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_INITIAL_NETWORK_H_
