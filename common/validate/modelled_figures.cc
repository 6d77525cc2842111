#include "common/validate/modelled_figures.h"

namespace mmapzero::validate {

ModelledFigures ComputeFigures(const ReferenceLatency& latency,
                               const std::vector<char>& fast) {
  ModelledFigures figures;
  double best_return = 0.0;
  std::vector<int> in_fast;
  for (int t = 0; t < latency.num_steps(); ++t) {
    in_fast.clear();
    for (int b : latency.BuffersOf(t)) {
      if (fast[b]) in_fast.push_back(b);
    }
    // Over the whole run: a step inside loops counts its repeat times.
    const double repeat = latency.Repeat(t);
    const double step_latency = repeat * latency.Latency(t, in_fast);
    const double all_slow = repeat * latency.AllSlow(t);
    const double all_fast = repeat * latency.AllFast(t);
    figures.latency_us += step_latency;
    figures.return_us += all_slow - step_latency;
    figures.all_slow_latency_us += all_slow;
    figures.all_fast_latency_us += all_fast;
    best_return += all_slow - all_fast;
  }
  figures.normalised_return =
      best_return == 0.0 ? 0.0 : figures.return_us / best_return;
  return figures;
}

}  // namespace mmapzero::validate
