#include "common/training/initial_network.h"

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/model/network_checkpoint.h"
#include "common/training/default_network.h"

namespace mmapzero::training {

using features::kDefaultNetwork;
using features::kNoNetwork;

absl::StatusOr<std::string> LoadNetworkByName(const std::string& name,
                                              model::MuZeroNetwork& network) {
  if (features::NamesNetworkFile(name)) {
    RETURN_IF_ERROR(model::LoadCheckpoint(name, network));
    return name;
  }
  if (name == kNoNetwork) return std::string(kNoNetwork);
  const absl::Status loaded =
      model::LoadNetworkParameters(DefaultNetworkBytes(), network);
  if (loaded.ok()) return std::string(kDefaultNetwork);
  // Unasked (""), a default that does not fit is no error: another config
  // starts fresh.
  if (name.empty()) return std::string(kNoNetwork);
  return absl::Status(
      loaded.code(),
      absl::StrCat("the default network (networks/default-cpu.pt, the cpu "
                   "preset's) does not fit: ",
                   loaded.message()));
}

absl::StatusOr<std::string> LoadInitialNetwork(const TrainingConfig& training,
                                               model::MuZeroNetwork& network) {
  absl::StatusOr<std::string> loaded =
      LoadNetworkByName(training.initial_network(), network);
  if (loaded.ok()) return loaded;
  return absl::Status(loaded.status().code(),
                      absl::StrCat("training.initial_network: ",
                                   loaded.status().message()));
}

}  // namespace mmapzero::training
