#include "common/training/initial_network.h"

#include "absl/strings/str_cat.h"
#include "common/model/network_checkpoint.h"

namespace mmapzero::training {

absl::Status LoadInitialNetwork(const TrainingConfig& training,
                                model::MuZeroNetwork& network) {
  if (training.initial_network().empty()) return absl::OkStatus();
  const absl::Status loaded =
      model::LoadCheckpoint(training.initial_network(), network);
  if (loaded.ok()) return loaded;
  return absl::Status(loaded.code(),
                      absl::StrCat("training.initial_network: ",
                                   loaded.message()));
}

}  // namespace mmapzero::training
