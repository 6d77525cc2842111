// Visit-count temperature: the schedule over learner steps and the draw of
// an action from counts (or priors) at a temperature.
//
// Schedule: MuZero's pseudocode steps the temperature down (1.0, 0.5,
// 0.25 at 50% and 75% of training); our SearchConfig names a start, an end
// and a decay length, so the decay here is LINEAR from temperature_start at
// learner step 0 to temperature_end at temperature_decay_steps, constant
// after (the paper's "decayed over training" made explicit).
#ifndef MMAPZERO_COMMON_SEARCH_TEMPERATURE_H_
#define MMAPZERO_COMMON_SEARCH_TEMPERATURE_H_

#include <array>
#include <cstdint>

#include "common/game/action.h"
#include "common/search/search_random.h"
#include "proto/muzero.pb.h"

namespace mmapzero::search {

// Temperatures at or below this act greedily.
inline constexpr double kGreedyTemperature = 1e-3;

double VisitTemperature(const SearchConfig& config, int64_t learner_step);

// An action in `mask` drawn with probability proportional to
// weights[a]^(1 / temperature); greedy (argmax, ties to the lowest index,
// no draw) at temperatures <= kGreedyTemperature or when no weight in the
// mask is positive (then the lowest legal action). `mask` must not be empty.
int SampleWithTemperature(const std::array<double, game::kNumActions>& weights,
                          uint8_t mask, double temperature, SearchRng* rng);

}  // namespace mmapzero::search

#endif  // MMAPZERO_COMMON_SEARCH_TEMPERATURE_H_
