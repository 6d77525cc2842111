// The network as search sees it, batch-first (as lc0's backend and OpenSpiel's
// Evaluator): search collects the leaves of many games, then makes one call.
// The LibTorch networks (common/model/) implement it; tests use
// deterministic fakes. Hidden states are opaque float vectors.
//
// Thread-safety: an Evaluator is called by one thread at a time unless an
// implementation says otherwise.
#ifndef MMAPZERO_COMMON_SEARCH_EVALUATOR_H_
#define MMAPZERO_COMMON_SEARCH_EVALUATOR_H_

#include <array>
#include <vector>

#include "absl/types/span.h"
#include "common/features/observation.h"

namespace mmapzero::search {

// The network's answer for one position.
struct Inference {
  std::vector<float> hidden;           // embedding of the state reached
  float value = 0;                     // scalar (support already decoded)
  float reward = 0;                    // of the step into it; 0 at the root
  std::array<float, 3> policy_logits{};  // Copy, NoCopy, Drop
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // Representation + prediction for each observation; `out` is resized.
  virtual void InitialInference(
      absl::Span<const features::Observation* const> observations,
      std::vector<Inference>* out) = 0;
  // Dynamics + prediction: hidden[i] after actions[i] (0 Copy, 1 NoCopy,
  // 2 Drop); `out` is resized.
  virtual void RecurrentInference(
      absl::Span<const std::vector<float>* const> hidden,
      absl::Span<const int> actions, std::vector<Inference>* out) = 0;
};

}  // namespace mmapzero::search

#endif  // MMAPZERO_COMMON_SEARCH_EVALUATOR_H_
