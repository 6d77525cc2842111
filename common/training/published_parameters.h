// The parameters a learner publishes to the actors of its process (the
// in-process solver's protocol; the services publish serialised parameters
// through the ParameterService instead): the learner owns its training
// network and calls Publish(network, learner_step), which deep-copies the
// parameters under a mutex; each actor owns a private copy of the network
// (so the optimiser never writes under a running forward) and copies the
// newest version into it between moves (CopyIfNewer). The version is the
// learner step.
#ifndef MMAPZERO_COMMON_TRAINING_PUBLISHED_PARAMETERS_H_
#define MMAPZERO_COMMON_TRAINING_PUBLISHED_PARAMETERS_H_

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "common/base/guarded.h"
#include "common/model/networks.h"

namespace mmapzero::training {

// The latest parameters the learner published, with their version (the
// learner step). Thread-safe.
class PublishedParameters {
 public:
  // Deep-copies `network`'s parameters and buffers as `version`.
  void Publish(const model::MuZeroNetwork& network, int64_t version);
  // Copies the published parameters into `network` when their version is
  // newer than *version (then updates it); false when nothing newer.
  bool CopyIfNewer(model::MuZeroNetwork& network, int64_t* version) const;
  // -1 before the first Publish.
  int64_t version() const;

 private:
  struct Snapshot {
    std::vector<torch::Tensor> tensors;
    int64_t version = -1;
  };
  Guarded<Snapshot> snapshot_;
};

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_PUBLISHED_PARAMETERS_H_
