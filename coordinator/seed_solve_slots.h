// At most N seed solves at once. Every submission is solved by the seed
// solver before its job exists (up to heuristic_budget_ms of one core
// each), so without a bound a burst of submissions would take every core
// of the coordinator and starve its heartbeats. A submission beyond the
// bound waits for a slot while its caller is still there, for at most a
// set time, then gets RESOURCE_EXHAUSTED (retry later), never a job made
// late.
#ifndef MMAPZERO_COORDINATOR_SEED_SOLVE_SLOTS_H_
#define MMAPZERO_COORDINATOR_SEED_SOLVE_SLOTS_H_

#include <functional>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace mmapzero::coordinator {

class SeedSolveSlots {
 public:
  // Holds one slot until destroyed.
  class Slot {
   public:
    Slot(Slot&& other) noexcept : owner_(other.owner_) {
      other.owner_ = nullptr;
    }
    Slot& operator=(Slot&&) = delete;
    ~Slot();

   private:
    friend class SeedSolveSlots;
    explicit Slot(SeedSolveSlots* owner) : owner_(owner) {}
    SeedSolveSlots* owner_;
  };

  explicit SeedSolveSlots(int slots) : slots_(slots < 1 ? 1 : slots) {}

  // A free slot, waiting up to `max_wait` for one. Cancelled once
  // `caller_gone` (when given; asked every 50 ms while waiting) says so;
  // ResourceExhausted, naming how many solves run, when the wait is over.
  absl::StatusOr<Slot> Acquire(absl::Duration max_wait,
                               const std::function<bool()>& caller_gone)
      ABSL_LOCKS_EXCLUDED(mu_);

  int in_use() const ABSL_LOCKS_EXCLUDED(mu_);
  int waiting() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void Release() ABSL_LOCKS_EXCLUDED(mu_);

  const int slots_;
  mutable absl::Mutex mu_;
  int in_use_ ABSL_GUARDED_BY(mu_) = 0;
  int waiting_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_SEED_SOLVE_SLOTS_H_
