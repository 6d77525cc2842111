#include "cli/interrupt_watcher.h"

#include <unistd.h>

#include <cstdlib>
#include <utility>

#include "absl/time/clock.h"

namespace mmapzero::cli {
namespace {

std::atomic<int> signal_count{0};
static_assert(std::atomic<int>::is_always_lock_free);

// Async-signal-safe: an atomic, write(2) and _Exit only.
void CountSignal(int) {
  if (signal_count.fetch_add(1) == 0) return;
  constexpr char kMessage[] =
      "mmapctl: interrupted again; exiting without cleaning up\n";
  (void)!write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
  std::_Exit(130);
}

}  // namespace

InterruptWatcher::InterruptWatcher() {
  signal_count = 0;
  struct sigaction action = {};
  action.sa_handler = CountSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &old_int_);
  sigaction(SIGTERM, &action, &old_term_);
  thread_ = std::thread([this] { Watch(); });
}

InterruptWatcher::~InterruptWatcher() {
  stop_ = true;
  thread_.join();
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

void InterruptWatcher::OnInterrupt(std::function<void()> callback) {
  {
    absl::MutexLock lock(&mutex_);
    if (!interrupted_) {
      callback_ = std::move(callback);
      return;
    }
  }
  callback();
}

void InterruptWatcher::Watch() {
  while (!stop_) {
    absl::SleepFor(absl::Milliseconds(50));
    if (interrupted_ || signal_count.load() == 0) continue;
    std::function<void()> callback;
    {
      absl::MutexLock lock(&mutex_);
      interrupted_ = true;
      callback = std::move(callback_);
    }
    if (callback) callback();
  }
}

}  // namespace mmapzero::cli
