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
    const double step_latency = latency.Latency(t, in_fast);
    figures.latency_us += step_latency;
    figures.return_us += latency.AllSlow(t) - step_latency;
    figures.all_slow_latency_us += latency.AllSlow(t);
    figures.all_fast_latency_us += latency.AllFast(t);
    best_return += latency.AllSlow(t) - latency.AllFast(t);
  }
  figures.normalised_return =
      best_return == 0.0 ? 0.0 : figures.return_us / best_return;
  return figures;
}

}  // namespace mmapzero::validate
