// SIGINT and SIGTERM as a callback, for commands that own child processes
// (`mmapctl solve --solver muzero` and its local cluster): the first signal
// lets the command wind down cleanly (cancel its job, keep the best so
// far, stop the services it started) instead of dying and leaving them
// running; a second one exits at once (status 130).
//
// A handler (whichever thread the signal lands on) counts the signals; a
// thread of the watcher's own sees the count within 50 ms and runs the
// callback there, outside the handler. One watcher at a time; the
// destructor restores the handlers it replaced.
#ifndef MMAPZERO_CLI_INTERRUPT_WATCHER_H_
#define MMAPZERO_CLI_INTERRUPT_WATCHER_H_

#include <signal.h>

#include <atomic>
#include <functional>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace mmapzero::cli {

class InterruptWatcher {
 public:
  InterruptWatcher();
  ~InterruptWatcher();
  InterruptWatcher(const InterruptWatcher&) = delete;
  InterruptWatcher& operator=(const InterruptWatcher&) = delete;

  bool interrupted() const { return interrupted_.load(); }

  // Runs `callback` on the watcher's thread at the first signal, or at once
  // (on this thread) when it came already. Replaces an earlier callback.
  void OnInterrupt(std::function<void()> callback);

 private:
  void Watch();

  struct sigaction old_int_;
  struct sigaction old_term_;
  std::atomic<bool> interrupted_{false};
  std::atomic<bool> stop_{false};
  absl::Mutex mutex_;
  std::function<void()> callback_ ABSL_GUARDED_BY(mutex_);
  std::thread thread_;
};

}  // namespace mmapzero::cli

#endif  // MMAPZERO_CLI_INTERRUPT_WATCHER_H_
