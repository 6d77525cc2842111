#include "common/base/malloc_tuning.h"

#include <malloc.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>

namespace mmapzero {

int MallocArenaLimit() {
  return std::max(2, static_cast<int>(std::thread::hardware_concurrency()));
}

void KeepFreedMemoryForReuse() {
  // mmap only for blocks of 32 MiB and more (glibc's largest threshold),
  // and trim a heap only when 1 GiB at its top is free.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_ARENA_MAX, MallocArenaLimit());
}

void ReleaseFreedMemory() { malloc_trim(0); }

PeriodicMemoryRelease::PeriodicMemoryRelease(absl::Duration interval)
    : thread_([interval](std::stop_token stop) {
        std::mutex mu;
        std::condition_variable_any stopped;
        std::unique_lock<std::mutex> lock(mu);
        // Wakes at each interval (false: release) or at once on stop (true).
        while (!stopped.wait_for(lock, stop,
                                 absl::ToChronoMilliseconds(interval),
                                 [&stop] { return stop.stop_requested(); })) {
          ReleaseFreedMemory();
        }
      }) {}

}  // namespace mmapzero
