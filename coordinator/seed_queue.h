// The jobs whose seed solve is still to run, and the threads that run them.
// SubmitJob makes a job at once (state SEEDING) and queues it here; each of
// `solvers` threads takes the oldest queued job and runs `seed` on it (the
// seed solve, up to heuristic_budget of one core, then the job's first
// best). So a submission is answered in milliseconds whatever the workload,
// at most `solvers` solves take the coordinator's cores, and a burst
// beyond `max_waiting` queued jobs is refused before any job is made.
//
// Stop() lets running solves finish and drops the queued ones: they are
// still SEEDING in the store, and the next coordinator on the same data
// directory queues them again.
//
// Thread-safety: thread-safe; `seed` runs on the queue's threads with no
// lock of the queue held.
#ifndef MMAPZERO_COORDINATOR_SEED_QUEUE_H_
#define MMAPZERO_COORDINATOR_SEED_QUEUE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace mmapzero::coordinator {

class SeedQueue {
 public:
  // `solvers` and `max_waiting` are at least 1.
  SeedQueue(int solvers, int max_waiting, std::function<void(int64_t)> seed);
  ~SeedQueue();  // Stop()

  // OK when one more job can be queued now; ResourceExhausted naming how
  // many wait otherwise (or Unavailable once stopped).
  absl::Status CheckRoom() const ABSL_LOCKS_EXCLUDED(mu_);
  // Queues `job_id`. A job queued again on a restart passes `force`, which
  // ignores max_waiting (those jobs already exist).
  absl::Status Add(int64_t job_id, bool force = false) ABSL_LOCKS_EXCLUDED(mu_);

  // Lets running solves finish, drops the queued ones and joins the
  // threads. Idempotent. Call without holding any lock that `seed` takes.
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);

  int waiting() const ABSL_LOCKS_EXCLUDED(mu_);
  int running() const ABSL_LOCKS_EXCLUDED(mu_);
  // Waits until nothing is queued or running; false after `timeout`.
  bool AwaitIdle(absl::Duration timeout) const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void Run() ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status CheckRoomLocked() const ABSL_SHARED_LOCKS_REQUIRED(mu_);

  const int max_waiting_;
  const std::function<void(int64_t)> seed_;
  mutable absl::Mutex mu_;
  std::deque<int64_t> queue_ ABSL_GUARDED_BY(mu_);
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::jthread> threads_;  // last: started after the rest
};

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_SEED_QUEUE_H_
