#include "common/training/initial_network.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/model/network_checkpoint.h"
#include "common/training/default_network.h"

namespace mmapzero::training {

using features::kDefaultNetwork;
using features::kNoNetwork;

absl::StatusOr<std::string> LoadNetworkByName(const std::string& name,
                                              model::MuZeroNetwork& network,
                                              absl::string_view fetched) {
  if (features::ClassifyNetwork(name) ==
      features::NetworkReference::kChecksum) {
    if (fetched.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "'", name,
          "' is a coordinator's copy of a network for a job: the job's "
          "learner fetches it"));
    }
    const absl::Status loaded = model::LoadNetworkParameters(fetched, network);
    if (!loaded.ok()) {
      return absl::Status(loaded.code(),
                          absl::StrCat(name, ": ", loaded.message()));
    }
    return name;
  }
  if (features::NamesNetworkFile(name)) {
    std::error_code error;
    if (features::NamesCoordinatorNetwork(name) &&
        !std::filesystem::is_regular_file(name, error)) {
      return absl::NotFoundError(absl::StrCat(
          "no network file '", name,
          "': registered networks and jobs' networks are for jobs on a "
          "cluster (mmapctl submit --network ",
          name, "); `mmapctl networks export ", name,
          " --out FILE` gives a file to use here"));
    }
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
                                               model::MuZeroNetwork& network,
                                               absl::string_view fetched) {
  absl::StatusOr<std::string> loaded =
      LoadNetworkByName(training.initial_network(), network, fetched);
  if (loaded.ok()) {
    if (training.initial_policy_uniform() && *loaded != kNoNetwork) {
      network->prediction->MakePolicyUniform();
      return absl::StrCat(*loaded, " (policy uniform)");
    }
    return loaded;
  }
  return absl::Status(loaded.status().code(),
                      absl::StrCat("training.initial_network: ",
                                   loaded.status().message()));
}

}  // namespace mmapzero::training
