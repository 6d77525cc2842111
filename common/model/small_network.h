// A small network (close to the `cpu` preset) shared by the model tests and
// benchmarks, so their figures speak of one size: 32x32 occupancy, a
// 200-value vector, hidden 64, 2 residual blocks of 16 channels.
#ifndef MMAPZERO_COMMON_MODEL_SMALL_NETWORK_H_
#define MMAPZERO_COMMON_MODEL_SMALL_NETWORK_H_

#include "common/model/networks.h"
#include "proto/muzero.pb.h"

namespace mmapzero::model {

inline NetworkConfig SmallNetworkConfig() {
  NetworkConfig config;
  config.set_hidden_size(64);
  config.set_resnet_channels(16);
  config.set_resnet_blocks(2);
  config.set_mlp_hidden(128);
  config.set_value_support_size(50);
  config.set_reward_support_size(10);
  return config;
}

inline constexpr ObservationShape kSmallObservationShape{32, 32, 200};

}  // namespace mmapzero::model

#endif  // MMAPZERO_COMMON_MODEL_SMALL_NETWORK_H_
