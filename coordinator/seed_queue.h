// The jobs whose seed solve is still to run, and the threads that run them.
// SubmitJob makes a job at once (state SEEDING) and queues it here; each of
// `solvers` threads takes the oldest queued job and runs `seed` on it (the
// seed solve, up to heuristic_budget of one core, then the job's first
// best). So a submission is answered in milliseconds whatever the workload,
// at most `solvers` solves take the coordinator's cores, and a burst
// beyond `max_waiting` queued jobs is refused before any job is made.
//
// `seed` gets a stop predicate that turns true when its job is cancelled
// (Cancel) or the queue stops, so that a long seed solve (BRKGA for
// heuristic_budget) gives its core back at once. Stop() asks running
// solves to stop, drops the queued ones and joins: those jobs are still
// SEEDING in the store, and the next coordinator on the same data
// directory queues them again.
//
// Thread-safety: thread-safe; `seed` and its predicate run on the queue's
// threads with no lock of the queue held.
#ifndef MMAPZERO_COORDINATOR_SEED_QUEUE_H_
#define MMAPZERO_COORDINATOR_SEED_QUEUE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace mmapzero::coordinator {

class SeedQueue {
 public:
  // `solvers` and `max_waiting` are at least 1.
  using StopRequested = std::function<bool()>;
  using SeedFunction =
      std::function<void(int64_t job_id, const StopRequested& stop_requested)>;

  SeedQueue(int solvers, int max_waiting, SeedFunction seed);
  ~SeedQueue();  // Stop()

  // OK when one more job can be queued now; ResourceExhausted naming how
  // many wait otherwise (or Unavailable once stopped).
  absl::Status CheckRoom() const ABSL_LOCKS_EXCLUDED(mu_);
  // Queues `job_id`. A job queued again on a restart passes `force`, which
  // ignores max_waiting (those jobs already exist).
  absl::Status Add(int64_t job_id, bool force = false) ABSL_LOCKS_EXCLUDED(mu_);

  // `job_id` no longer needs its seed (it was cancelled): dropped when it
  // waits, its solve asked to stop when it runs. No-op otherwise.
  void Cancel(int64_t job_id) ABSL_LOCKS_EXCLUDED(mu_);

  // Asks running solves to stop and drops the queued ones, without waiting;
  // from now on Add answers Unavailable. Idempotent.
  void RequestStop() ABSL_LOCKS_EXCLUDED(mu_);
  // RequestStop, then joins the threads. Idempotent. Call without holding
  // any lock that `seed` takes.
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);

  int waiting() const ABSL_LOCKS_EXCLUDED(mu_);
  int running() const ABSL_LOCKS_EXCLUDED(mu_);
  // Waits until nothing is queued or running; false after `timeout`.
  bool AwaitIdle(absl::Duration timeout) const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void Run() ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status CheckRoomLocked() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  bool StopAsked(int64_t job_id) const ABSL_LOCKS_EXCLUDED(mu_);

  const int max_waiting_;
  const SeedFunction seed_;
  mutable absl::Mutex mu_;
  std::deque<int64_t> queue_ ABSL_GUARDED_BY(mu_);
  // The jobs whose solve runs now, and whether it was asked to stop.
  absl::flat_hash_map<int64_t, bool> running_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::jthread> threads_;  // last: started after the rest
};

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_SEED_QUEUE_H_
