// Exponential backoff for retrying a peer that is away (restarting, not
// yet started): 100 ms doubling to a cap of 5 s, with +-20% jitter so that
// many workers do not retry in step. Reset() after a success.
#ifndef MMAPZERO_COMMON_RPC_BACKOFF_H_
#define MMAPZERO_COMMON_RPC_BACKOFF_H_

#include <algorithm>
#include <cstdint>
#include <random>

#include "absl/time/time.h"

namespace mmapzero::rpc {

class Backoff {
 public:
  explicit Backoff(absl::Duration initial = absl::Milliseconds(100),
                   absl::Duration cap = absl::Seconds(5), uint64_t seed = 1)
      : initial_(initial), cap_(cap), next_(initial), random_(seed) {}

  // The wait before the next attempt; doubles the one after.
  absl::Duration Next() {
    const absl::Duration wait = next_;
    next_ = std::min(cap_, next_ * 2);
    std::uniform_real_distribution<double> jitter(0.8, 1.2);
    return wait * jitter(random_);
  }
  void Reset() { next_ = initial_; }

 private:
  absl::Duration initial_;
  absl::Duration cap_;
  absl::Duration next_;
  std::mt19937_64 random_;
};

}  // namespace mmapzero::rpc

#endif  // MMAPZERO_COMMON_RPC_BACKOFF_H_
