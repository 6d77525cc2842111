#include "common/training/published_parameters.h"

#include <utility>

#include "common/base/check.h"

namespace mmapzero::training {
namespace {

// Every tensor of the network's state (parameters, then buffers), in a
// fixed order.
std::vector<torch::Tensor> StateTensors(const model::MuZeroNetwork& network) {
  std::vector<torch::Tensor> tensors = network->parameters();
  for (const torch::Tensor& buffer : network->buffers()) {
    tensors.push_back(buffer);
  }
  return tensors;
}

}  // namespace

void PublishedParameters::Publish(const model::MuZeroNetwork& network,
                                  int64_t version) {
  Snapshot copy;
  {
    torch::NoGradGuard no_grad;
    for (const torch::Tensor& tensor : StateTensors(network)) {
      copy.tensors.push_back(tensor.detach().clone());
    }
  }
  copy.version = version;
  snapshot_.Update([&](Snapshot& snapshot) { snapshot = std::move(copy); });
}

bool PublishedParameters::CopyIfNewer(model::MuZeroNetwork& network,
                                      int64_t* version) const {
  return snapshot_.Read([&](const Snapshot& snapshot) {
    if (snapshot.version <= *version) return false;
    std::vector<torch::Tensor> targets = StateTensors(network);
    MMAPZERO_CHECK(targets.size() == snapshot.tensors.size(),
                   "published parameters are of another architecture");
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < targets.size(); ++i) {
      targets[i].copy_(snapshot.tensors[i]);
    }
    *version = snapshot.version;
    return true;
  });
}

int64_t PublishedParameters::version() const {
  return snapshot_.Read(
      [](const Snapshot& snapshot) { return snapshot.version; });
}

}  // namespace mmapzero::training
