// How search turns a game state into the network's input. A callback, so
// that search does not depend on the feature extractor: the agent binds
// features::Observe(game, feature_config, out) here; tests bind fakes.
// Called from the searching thread only.
#ifndef MMAPZERO_COMMON_SEARCH_OBSERVATION_SOURCE_H_
#define MMAPZERO_COMMON_SEARCH_OBSERVATION_SOURCE_H_

#include <functional>

#include "common/features/observation.h"
#include "common/game/mmap_game.h"

namespace mmapzero::search {

using ObservationSource =
    std::function<void(const game::MMapGame&, features::Observation*)>;

}  // namespace mmapzero::search

#endif  // MMAPZERO_COMMON_SEARCH_OBSERVATION_SOURCE_H_
