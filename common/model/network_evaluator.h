// search::Evaluator on a MuZeroNetwork: the batch-first adapter between the
// MCTS (which sees Observations and opaque hidden vectors) and LibTorch. Each
// call stacks the batch into reusable contiguous staging buffers, wraps them
// with from_blob (no copy on the CPU), runs one forward under NoGradGuard on
// the network's device, and decodes value / reward from their categorical
// supports (support_scaling.h).
//
// Thread-safety: one thread at a time (the staging buffers are members), as
// the Evaluator contract allows.
#ifndef MMAPZERO_COMMON_MODEL_NETWORK_EVALUATOR_H_
#define MMAPZERO_COMMON_MODEL_NETWORK_EVALUATOR_H_

#include <vector>

#include "absl/types/span.h"
#include "common/features/observation.h"
#include "common/model/networks.h"
#include "common/search/evaluator.h"

namespace mmapzero::model {

class NetworkEvaluator : public search::Evaluator {
 public:
  // Shares `network` (a module holder): training it elsewhere changes what
  // this evaluator answers (the networks have no train/eval-dependent
  // layers, so the mode does not matter).
  explicit NetworkEvaluator(MuZeroNetwork network);

  // Observations must have the network's ObservationShape sizes, hidden
  // vectors hidden_size entries, actions be in {0, 1, 2} (CHECKed: a mismatch
  // is a wiring bug, not input).
  void InitialInference(
      absl::Span<const features::Observation* const> observations,
      std::vector<search::Inference>* out) override;
  void RecurrentInference(absl::Span<const std::vector<float>* const> hidden,
                          absl::Span<const int> actions,
                          std::vector<search::Inference>* out) override;

 private:
  // Copies the network's outputs (any device) into `out`.
  void Unpack(const NetworkOutput& output, std::vector<search::Inference>* out);

  MuZeroNetwork network_;
  std::vector<float> occupancy_staging_;
  std::vector<float> vector_staging_;
  std::vector<float> hidden_staging_;
  std::vector<int64_t> action_staging_;
};

}  // namespace mmapzero::model

#endif  // MMAPZERO_COMMON_MODEL_NETWORK_EVALUATOR_H_
