// An Evaluator that forwards every call to another and tells an observer
// the call's batch size and wall time: how the actor service measures its
// inference batch sizes and latencies (actor/actor_metrics.h) without the
// search or the network knowing about metrics.
//
// Thread-safety: that of the wrapped evaluator; the observer is called on
// the calling thread.
#ifndef MMAPZERO_COMMON_SEARCH_OBSERVED_EVALUATOR_H_
#define MMAPZERO_COMMON_SEARCH_OBSERVED_EVALUATOR_H_

#include <functional>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "common/search/evaluator.h"

namespace mmapzero::search {

// Called after each evaluator call with its batch size and duration.
using InferenceObserver = std::function<void(int batch, absl::Duration)>;

class ObservedEvaluator : public Evaluator {
 public:
  // `inner` is not owned and must outlive this object; `observer` may be
  // empty (then this only forwards).
  ObservedEvaluator(Evaluator* inner, InferenceObserver observer)
      : inner_(inner), observer_(std::move(observer)) {}

  void set_observer(InferenceObserver observer) {
    observer_ = std::move(observer);
  }

  void InitialInference(
      absl::Span<const features::Observation* const> observations,
      std::vector<Inference>* out) override {
    const absl::Time start = absl::Now();
    inner_->InitialInference(observations, out);
    if (observer_) {
      observer_(static_cast<int>(observations.size()), absl::Now() - start);
    }
  }
  void RecurrentInference(absl::Span<const std::vector<float>* const> hidden,
                          absl::Span<const int> actions,
                          std::vector<Inference>* out) override {
    const absl::Time start = absl::Now();
    inner_->RecurrentInference(hidden, actions, out);
    if (observer_) {
      observer_(static_cast<int>(hidden.size()), absl::Now() - start);
    }
  }

 private:
  Evaluator* inner_;
  InferenceObserver observer_;
};

}  // namespace mmapzero::search

#endif  // MMAPZERO_COMMON_SEARCH_OBSERVED_EVALUATOR_H_
