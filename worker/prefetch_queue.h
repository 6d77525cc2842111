// A bounded queue of batches filled by a thread of its own, so the learner
// never waits on the network while the replay answers ("streams
// batches from replay with a prefetch queue"). The thread calls `sampler`
// (one SampleBatch call in the service) whenever fewer than `capacity`
// batches wait, and on failure:
//  - FailedPrecondition (the replay table cannot start training yet, or
//    its rate limiter holds the learner back): waits `not_ready_wait` and
//    asks again, without growing the wait;
//  - anything else (replay away, deadline passed): waits with exponential
//    backoff (backoff.h), reset by the next success.
// The last failure is kept for Next's DeadlineExceeded message and stats().
// Thread-safe; the destructor stops and joins the thread.
#ifndef MMAPZERO_WORKER_PREFETCH_QUEUE_H_
#define MMAPZERO_WORKER_PREFETCH_QUEUE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/agent/batch_source.h"

namespace mmapzero::worker {

struct PrefetchOptions {
  int capacity = 4;  // batches held, >= 1
  absl::Duration not_ready_wait = absl::Milliseconds(250);
  absl::Duration backoff_initial = absl::Milliseconds(100);
  absl::Duration backoff_cap = absl::Seconds(5);
};

struct PrefetchStats {
  int queued = 0;          // batches waiting now
  int64_t fetched = 0;     // batches the sampler delivered
  int64_t not_ready = 0;   // FailedPrecondition answers
  int64_t failures = 0;    // other failures
  std::string last_error;  // "" after a success
};

class PrefetchQueue final : public agent::BatchSource {
 public:
  // One call to the replay; blocking, with its own deadline.
  using Sampler = std::function<absl::StatusOr<agent::Batch>()>;

  // Starts the thread. capacity < 1 is taken as 1.
  PrefetchQueue(Sampler sampler, PrefetchOptions options = {});
  ~PrefetchQueue() override;

  absl::StatusOr<agent::Batch> Next(absl::Duration timeout) override
      ABSL_LOCKS_EXCLUDED(mu_);
  PrefetchStats stats() const ABSL_LOCKS_EXCLUDED(mu_);
  // Blocks until `queued` batches wait or `timeout` passes; whether they
  // do (tests, warm-up).
  bool AwaitQueued(int queued, absl::Duration timeout) const
      ABSL_LOCKS_EXCLUDED(mu_);
  // Stops the thread after its current sampler call; idempotent.
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void Run() ABSL_LOCKS_EXCLUDED(mu_);

  const Sampler sampler_;
  const PrefetchOptions options_;
  mutable absl::Mutex mu_;
  std::deque<agent::Batch> queue_ ABSL_GUARDED_BY(mu_);
  PrefetchStats stats_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::jthread thread_;  // last: started after the fields it uses
};

}  // namespace mmapzero::worker

#endif  // MMAPZERO_WORKER_PREFETCH_QUEUE_H_
