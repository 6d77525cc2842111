// How the services use glibc's malloc: freed memory kept for reuse while
// they work, and given back to the kernel now and then.
//
// KeepFreedMemoryForReuse keeps memory that LibTorch frees for its next
// allocation instead of returning it to the kernel. glibc's malloc serves
// large blocks (above a threshold that starts at 128 KiB) with mmap and
// unmaps them when freed, and trims the heap's free top; a training or
// inference step allocates and frees the same large tensors every time, so
// each step faults in fresh zeroed pages (model_bench: 2-3.7 M page faults
// against 28 k without; a quarter of a cluster learner's cycles were in the
// kernel). Call once at the start of main, before any thread.
//
// Its cost is that a process keeps the high-water mark of every pattern of
// allocations it has met in each of its arenas: in a two-hour soak of job
// churn, services that were never killed kept several times the memory they
// used (the learner 210-274 MB from malloc, 57-73 MB of it in use), so their
// RSS rose for hours. PeriodicMemoryRelease gives the freed memory back
// (malloc_trim) every interval: a step's tensors fault in again once per
// interval, not once per step.
//
// It also allows malloc one arena per core (MallocArenaLimit), not glibc's
// eight: each arena keeps its own pages, and a page that still holds one
// live chunk cannot be given back, so under job churn more arenas pin more
// memory; more threads than cores cannot all allocate at once anyway. In
// a later two-hour soak with this limit the learner stayed at 198-231 MB
// after its first 20 minutes (without it: 279 MB at 20 minutes, 331 at two
// hours).
#ifndef MMAPZERO_COMMON_BASE_MALLOC_TUNING_H_
#define MMAPZERO_COMMON_BASE_MALLOC_TUNING_H_

#include <thread>

#include "absl/time/time.h"

namespace mmapzero {

void KeepFreedMemoryForReuse();

// The most malloc arenas KeepFreedMemoryForReuse allows: one per core, at
// least 2.
int MallocArenaLimit();

// Returns the free memory of every malloc arena to the kernel.
void ReleaseFreedMemory();

// Calls ReleaseFreedMemory every `interval` on a thread of its own, until
// destroyed (which stops and joins it at once).
class PeriodicMemoryRelease {
 public:
  explicit PeriodicMemoryRelease(absl::Duration interval);
  PeriodicMemoryRelease(const PeriodicMemoryRelease&) = delete;
  PeriodicMemoryRelease& operator=(const PeriodicMemoryRelease&) = delete;

 private:
  std::jthread thread_;
};

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_BASE_MALLOC_TUNING_H_
