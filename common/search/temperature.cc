#include "common/search/temperature.h"

#include <algorithm>
#include <cmath>

#include "common/base/check.h"

namespace mmapzero::search {

double VisitTemperature(const SearchConfig& config, int64_t learner_step) {
  const int64_t steps = config.temperature_decay_steps();
  if (steps <= 0 || learner_step >= steps) return config.temperature_end();
  const double progress =
      static_cast<double>(std::max<int64_t>(learner_step, 0)) / steps;
  return config.temperature_start() +
         (config.temperature_end() - config.temperature_start()) * progress;
}

int SampleWithTemperature(const std::array<double, game::kNumActions>& weights,
                          uint8_t mask, double temperature, SearchRng* rng) {
  MMAPZERO_CHECK(mask != 0, "no legal action to sample");
  int best = -1;
  for (int a = 0; a < game::kNumActions; ++a) {
    if (!(mask & (1u << a))) continue;
    if (best < 0 || weights[a] > weights[best]) best = a;
  }
  if (temperature <= kGreedyTemperature || weights[best] <= 0) return best;
  // p ∝ (w / w_max)^(1/T), in logs so that small T does not overflow.
  std::array<double, game::kNumActions> p{};
  double sum = 0;
  for (int a = 0; a < game::kNumActions; ++a) {
    if (!(mask & (1u << a)) || weights[a] <= 0) continue;
    p[a] = std::exp(std::log(weights[a] / weights[best]) / temperature);
    sum += p[a];
  }
  double u = rng->Uniform() * sum;
  int last = best;
  for (int a = 0; a < game::kNumActions; ++a) {
    if (p[a] <= 0) continue;
    last = a;
    if (u < p[a]) return a;
    u -= p[a];
  }
  return last;
}

}  // namespace mmapzero::search
