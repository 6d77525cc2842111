// Test-only helpers of the training tests: the cpu preset on tiny feature
// and network sizes (networks that train in milliseconds), and the complete
// game that a fixed preference of actions plays (a solution to offer or
// demonstrate).
#ifndef MMAPZERO_COMMON_TRAINING_TRAINING_TEST_SUPPORT_H_
#define MMAPZERO_COMMON_TRAINING_TRAINING_TEST_SUPPORT_H_

#include <array>
#include <memory>

#include "common/features/config_presets.h"
#include "common/game/mmap_game.h"
#include "common/game/program.h"
#include "common/solvers/policy.h"
#include "common/solvers/preference_policy.h"
#include "proto/muzero.pb.h"
#include "proto/solution.pb.h"

namespace mmapzero::training {

inline MuZeroConfig TinySizesConfig() {
  MuZeroConfig config = features::CpuPreset();
  FeatureConfig* f = config.mutable_features();
  f->set_next_buffers(2);
  f->set_same_tensor_buffers(1);
  f->set_occupancy_time_bins(8);
  f->set_occupancy_byte_bins(8);
  f->set_occupancy_window_steps(16);
  f->set_target_occupancy_bins(8);
  f->set_supply_window_steps(8);
  NetworkConfig* n = config.mutable_network();
  n->set_hidden_size(16);
  n->set_resnet_channels(4);
  n->set_resnet_blocks(1);
  n->set_mlp_hidden(16);
  n->set_value_support_size(10);
  n->set_reward_support_size(10);
  return config;
}

// The complete game that plays, at each decision, the first legal action
// of `preference`.
inline Solution PlayedByPreference(
    const std::shared_ptr<const game::Program>& program,
    std::array<game::Action, 3> preference) {
  game::MMapGame game(program);
  solvers::PreferencePolicy policy("preference", preference);
  solvers::PlayOut(game, policy);
  return game.ToSolution();
}

}  // namespace mmapzero::training

#endif  // MMAPZERO_COMMON_TRAINING_TRAINING_TEST_SUPPORT_H_
