// Test-only: waiting for a condition that another thread makes true.
#ifndef MMAPZERO_WORKER_WAIT_FOR_H_
#define MMAPZERO_WORKER_WAIT_FOR_H_

#include <functional>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace mmapzero::worker {

// Polls `done` every 20 ms for at most `timeout`; true once it holds.
inline bool WaitFor(const std::function<bool()>& done,
                    absl::Duration timeout = absl::Seconds(8)) {
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    if (done()) return true;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return done();
}

}  // namespace mmapzero::worker

#endif  // MMAPZERO_WORKER_WAIT_FOR_H_
