// The replay table's rate limiter (Reverb's SampleToInsertRatio): keeps the
// learner from training many times over on a small table, which overfits
// the first games. Training starts once `min_positions` steps are stored;
// after that a batch of b windows may be sampled only while
//   sampled + b <= samples_per_insert * inserted_positions + slack,
// counting windows sampled and steps inserted since the table was loaded
// (a restart starts with the positions held as "inserted").
// samples_per_insert = 0 turns the ratio off (only min_positions counts).
//
// Not thread-safe: the table calls it under its own mutex.
#ifndef MMAPZERO_REPLAY_RATE_LIMITER_H_
#define MMAPZERO_REPLAY_RATE_LIMITER_H_

#include <cstdint>

#include "absl/status/status.h"

namespace mmapzero::replay {

struct RateLimiterOptions {
  int64_t min_positions = 1000;   // steps stored before training starts
  double samples_per_insert = 0;  // windows per inserted step; 0: no limit
  int64_t slack = 4096;           // windows the learner may run ahead

  bool operator==(const RateLimiterOptions&) const = default;
};

class RateLimiter {
 public:
  explicit RateLimiter(RateLimiterOptions options = {}) : options_(options) {}

  void OnInsert(int64_t positions) { inserted_ += positions; }
  void OnSample(int64_t windows) { sampled_ += windows; }

  // OK, or FailedPrecondition saying which limit holds `windows` back
  // (`positions_held`: steps in the table now).
  absl::Status CanSample(int64_t windows, int64_t positions_held) const;

  const RateLimiterOptions& options() const { return options_; }
  void set_options(const RateLimiterOptions& options) { options_ = options; }
  int64_t inserted() const { return inserted_; }
  int64_t sampled() const { return sampled_; }

 private:
  RateLimiterOptions options_;
  int64_t inserted_ = 0;  // steps
  int64_t sampled_ = 0;   // windows
};

}  // namespace mmapzero::replay

#endif  // MMAPZERO_REPLAY_RATE_LIMITER_H_
