// Lets ThreadSanitizer see absl::Mutex when Abseil itself was built without
// it, as Debian's is. Abseil tells TSan about its locks only from code
// compiled with -fsanitize=thread, so against Debian's library every lock
// is invisible and two threads adding to a counter under one MutexLock are
// reported as a race. Linked into each executable of the TSan build
// (-DMMAPZERO_TSAN=ON, scripts/test-sanitize --tsan), this file defines
// absl::Mutex's and absl::CondVar's locking entry points in the executable,
// where the dynamic linker finds them first, for our code and for the
// libraries alike (Abseil's Notification, gRPC's locks). Each forwards to the
// library's own definition (dlsym RTLD_NEXT) and reports what happened with
// the same __tsan_mutex_* calls Abseil makes when it is built with TSan.
//
// Notification and BlockingCounter hand over through atomics inside the
// library as well as through their mutex, so their entry points report a
// release and an acquire of their own.
//
// Two things the library does inside a call are hidden instead: the
// library's entry points call one another through the same symbols
// (LockWhenWithTimeout calls LockWhenWithDeadline), so only a thread's
// outermost call reports; and a waiter's Condition is evaluated by
// whichever thread is releasing the mutex, after that release as TSan sees
// it, so accesses inside Condition::Eval are ignored.

#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "absl/base/config.h"
#include "absl/base/options.h"
#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

#ifndef ABSL_HAVE_THREAD_SANITIZER
#error "tsan_abseil_mutex.cc belongs in a -fsanitize=thread build only"
#endif
#if !ABSL_OPTION_USE_INLINE_NAMESPACE
#error "tsan_abseil_mutex.cc expects Abseil's inline namespace in its symbols"
#endif

// TSan's dynamic annotations (tsan_interface_ann.cpp).
extern "C" void AnnotateIgnoreReadsBegin(const char* file, int line);
extern "C" void AnnotateIgnoreReadsEnd(const char* file, int line);
extern "C" void AnnotateIgnoreWritesBegin(const char* file, int line);
extern "C" void AnnotateIgnoreWritesEnd(const char* file, int line);

namespace {

#define MMAPZERO_TSAN_STRINGIZE_(x) #x
#define MMAPZERO_TSAN_STRINGIZE(x) MMAPZERO_TSAN_STRINGIZE_(x)

// The library's definition of the function whose mangled name, after
// "_Z" ("N" or "NK") "4absl" and the inline namespace, is `rest`.
template <typename Function>
Function Real(const char* qualifier, const char* rest) {
  const char* inline_namespace =
      MMAPZERO_TSAN_STRINGIZE(ABSL_OPTION_INLINE_NAMESPACE_NAME);
  const std::string name = std::string("_Z") + qualifier + "4absl" +
                           std::to_string(std::strlen(inline_namespace)) +
                           inline_namespace + rest;
  void* function = dlsym(RTLD_NEXT, name.c_str());
  if (function == nullptr) {
    std::fprintf(stderr, "tsan_abseil_mutex: %s is not in the loaded Abseil\n",
                 name.c_str());
    std::abort();
  }
  return reinterpret_cast<Function>(function);
}

// How deep this thread is in the entry points below: only depth 0 reports.
thread_local int entry_depth = 0;

class Entry {
 public:
  Entry() : outermost_(entry_depth++ == 0) {}
  ~Entry() { --entry_depth; }
  Entry(const Entry&) = delete;
  Entry& operator=(const Entry&) = delete;
  bool outermost() const { return outermost_; }

 private:
  const bool outermost_;
};

// The mutexes this thread holds in shared mode, so that a wait (Await,
// CondVar::Wait) releases and retakes each in the mode it is held in.
thread_local std::vector<const void*> shared_held;

unsigned HeldMode(const void* mutex) {
  return std::find(shared_held.begin(), shared_held.end(), mutex) !=
                 shared_held.end()
             ? __tsan_mutex_read_lock
             : 0;
}

void ReportLocked(void* mutex, unsigned flags) {
  if (flags & __tsan_mutex_read_lock) shared_held.push_back(mutex);
  __tsan_mutex_post_lock(mutex, flags, 0);
}

// A wait that releases `mutex` and holds it again on return.
template <typename Wait>
auto AroundWait(void* mutex, Wait wait) {
  Entry entry;
  const unsigned mode = HeldMode(mutex);
  if (entry.outermost()) {
    __tsan_mutex_pre_unlock(mutex, mode);
    __tsan_mutex_post_unlock(mutex, mode);
  }
  auto result = wait();
  if (entry.outermost()) {
    __tsan_mutex_pre_lock(mutex, mode);
    __tsan_mutex_post_lock(mutex, mode, 0);
  }
  return result;
}

// A call that returns with `mutex` held in the mode of `flags`.
template <typename Acquire>
auto Acquiring(void* mutex, unsigned flags, Acquire acquire) {
  Entry entry;
  if (entry.outermost()) __tsan_mutex_pre_lock(mutex, flags);
  auto result = acquire();
  if (entry.outermost()) ReportLocked(mutex, flags);
  return result;
}

// A try-lock: reports the lock only if it was taken.
template <typename Try>
bool Trying(void* mutex, unsigned flags, Try attempt) {
  Entry entry;
  flags |= __tsan_mutex_try_lock;
  if (entry.outermost()) __tsan_mutex_pre_lock(mutex, flags);
  const bool locked = attempt();
  if (entry.outermost()) {
    if (locked) {
      ReportLocked(mutex, flags);
    } else {
      __tsan_mutex_post_lock(mutex, flags | __tsan_mutex_try_lock_failed, 0);
    }
  }
  return locked;
}

template <typename Release>
void Releasing(void* mutex, unsigned flags, Release release) {
  Entry entry;
  if (entry.outermost()) {
    if (flags & __tsan_mutex_read_lock) {
      auto it = std::find(shared_held.rbegin(), shared_held.rend(), mutex);
      if (it != shared_held.rend()) shared_held.erase(std::next(it).base());
    }
    __tsan_mutex_pre_unlock(mutex, flags);
  }
  release();
  if (entry.outermost()) __tsan_mutex_post_unlock(mutex, flags);
}

// Every call of a real function returns something, for the helpers above.
struct Nothing {};

// absl::Notification's members, to name the flag whose atomic load
// HasBeenNotified() makes in our (instrumented) code: Notify() releases
// there, so that the load acquires what the notifier wrote.
struct NotificationLayout {
  absl::Mutex mutex;
  std::atomic<bool> notified_yet;
};
static_assert(sizeof(NotificationLayout) == sizeof(absl::Notification));

void* NotifiedFlag(const absl::Notification* notification) {
  return &reinterpret_cast<NotificationLayout*>(
              const_cast<absl::Notification*>(notification))
              ->notified_yet;
}

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

// Every definition below is a lock function by its declaration; the bodies
// lock through the library's definition, which the analysis cannot see.
#define MMAPZERO_REAL(type, qualifier, rest) \
  static const auto real = Real<type>(qualifier, rest)

Mutex::~Mutex() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  MMAPZERO_REAL(void (*)(Mutex*), "N", "5MutexD1Ev");
  __tsan_mutex_destroy(this, __tsan_mutex_not_static);
  real(this);
}

void Mutex::Lock() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  MMAPZERO_REAL(void (*)(Mutex*), "N", "5Mutex4LockEv");
  Acquiring(this, 0, [&] { return real(this), Nothing{}; });
}

void Mutex::ReaderLock() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  MMAPZERO_REAL(void (*)(Mutex*), "N", "5Mutex10ReaderLockEv");
  Acquiring(this, __tsan_mutex_read_lock,
            [&] { return real(this), Nothing{}; });
}

void Mutex::Unlock() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  MMAPZERO_REAL(void (*)(Mutex*), "N", "5Mutex6UnlockEv");
  Releasing(this, 0, [&] { real(this); });
}

void Mutex::ReaderUnlock() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  MMAPZERO_REAL(void (*)(Mutex*), "N", "5Mutex12ReaderUnlockEv");
  Releasing(this, __tsan_mutex_read_lock, [&] { real(this); });
}

bool Mutex::TryLock() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  MMAPZERO_REAL(bool (*)(Mutex*), "N", "5Mutex7TryLockEv");
  return Trying(this, 0, [&] { return real(this); });
}

bool Mutex::ReaderTryLock() ABSL_NO_THREAD_SAFETY_ANALYSIS {
  MMAPZERO_REAL(bool (*)(Mutex*), "N", "5Mutex13ReaderTryLockEv");
  return Trying(this, __tsan_mutex_read_lock, [&] { return real(this); });
}

void Mutex::LockWhen(const Condition& cond) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  MMAPZERO_REAL(void (*)(Mutex*, const Condition&), "N",
                "5Mutex8LockWhenERKNS0_9ConditionE");
  Acquiring(this, 0, [&] { return real(this, cond), Nothing{}; });
}

void Mutex::ReaderLockWhen(const Condition& cond)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  MMAPZERO_REAL(void (*)(Mutex*, const Condition&), "N",
                "5Mutex14ReaderLockWhenERKNS0_9ConditionE");
  Acquiring(this, __tsan_mutex_read_lock,
            [&] { return real(this, cond), Nothing{}; });
}

// The timed forms return whether the condition held; the mutex is held
// either way.
bool Mutex::LockWhenWithTimeout(const Condition& cond, Duration timeout)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  MMAPZERO_REAL(bool (*)(Mutex*, const Condition&, Duration), "N",
                "5Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  return Acquiring(this, 0, [&] { return real(this, cond, timeout); });
}

bool Mutex::ReaderLockWhenWithTimeout(const Condition& cond, Duration timeout)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  MMAPZERO_REAL(
      bool (*)(Mutex*, const Condition&, Duration), "N",
      "5Mutex25ReaderLockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  return Acquiring(this, __tsan_mutex_read_lock,
                   [&] { return real(this, cond, timeout); });
}

bool Mutex::LockWhenWithDeadline(const Condition& cond,
                                 Time deadline) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  MMAPZERO_REAL(bool (*)(Mutex*, const Condition&, Time), "N",
                "5Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  return Acquiring(this, 0, [&] { return real(this, cond, deadline); });
}

bool Mutex::ReaderLockWhenWithDeadline(const Condition& cond, Time deadline)
    ABSL_NO_THREAD_SAFETY_ANALYSIS {
  MMAPZERO_REAL(
      bool (*)(Mutex*, const Condition&, Time), "N",
      "5Mutex26ReaderLockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  return Acquiring(this, __tsan_mutex_read_lock,
                   [&] { return real(this, cond, deadline); });
}

void Mutex::Await(const Condition& cond) {
  MMAPZERO_REAL(void (*)(Mutex*, const Condition&), "N",
                "5Mutex5AwaitERKNS0_9ConditionE");
  AroundWait(this, [&] { return real(this, cond), Nothing{}; });
}

bool Mutex::AwaitWithTimeout(const Condition& cond, Duration timeout) {
  MMAPZERO_REAL(bool (*)(Mutex*, const Condition&, Duration), "N",
                "5Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  return AroundWait(this, [&] { return real(this, cond, timeout); });
}

bool Mutex::AwaitWithDeadline(const Condition& cond, Time deadline) {
  MMAPZERO_REAL(bool (*)(Mutex*, const Condition&, Time), "N",
                "5Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  return AroundWait(this, [&] { return real(this, cond, deadline); });
}

void CondVar::Wait(Mutex* mu) {
  MMAPZERO_REAL(void (*)(CondVar*, Mutex*), "N", "7CondVar4WaitEPNS0_5MutexE");
  AroundWait(mu, [&] { return real(this, mu), Nothing{}; });
}

bool CondVar::WaitWithTimeout(Mutex* mu, Duration timeout) {
  MMAPZERO_REAL(bool (*)(CondVar*, Mutex*, Duration), "N",
                "7CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE");
  return AroundWait(mu, [&] { return real(this, mu, timeout); });
}

bool CondVar::WaitWithDeadline(Mutex* mu, Time deadline) {
  MMAPZERO_REAL(bool (*)(CondVar*, Mutex*, Time), "N",
                "7CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE");
  return AroundWait(mu, [&] { return real(this, mu, deadline); });
}

bool Condition::Eval() const {
  MMAPZERO_REAL(bool (*)(const Condition*), "NK", "9Condition4EvalEv");
  AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
  AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
  const bool result = real(this);
  AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
  AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
  return result;
}

void Notification::Notify() {
  MMAPZERO_REAL(void (*)(Notification*), "N", "12Notification6NotifyEv");
  __tsan_release(NotifiedFlag(this));
  real(this);
}

void Notification::WaitForNotification() const {
  MMAPZERO_REAL(void (*)(const Notification*), "NK",
                "12Notification19WaitForNotificationEv");
  real(this);
  __tsan_acquire(NotifiedFlag(this));
}

bool Notification::WaitForNotificationWithTimeout(Duration timeout) const {
  MMAPZERO_REAL(
      bool (*)(const Notification*, Duration), "NK",
      "12Notification30WaitForNotificationWithTimeoutENS0_8DurationE");
  const bool notified = real(this, timeout);
  if (notified) __tsan_acquire(NotifiedFlag(this));
  return notified;
}

bool Notification::WaitForNotificationWithDeadline(Time deadline) const {
  MMAPZERO_REAL(bool (*)(const Notification*, Time), "NK",
                "12Notification31WaitForNotificationWithDeadlineENS0_4TimeE");
  const bool notified = real(this, deadline);
  if (notified) __tsan_acquire(NotifiedFlag(this));
  return notified;
}

bool BlockingCounter::DecrementCount() {
  MMAPZERO_REAL(bool (*)(BlockingCounter*), "N",
                "15BlockingCounter14DecrementCountEv");
  __tsan_release(this);
  return real(this);
}

void BlockingCounter::Wait() {
  MMAPZERO_REAL(void (*)(BlockingCounter*), "N", "15BlockingCounter4WaitEv");
  real(this);
  __tsan_acquire(this);
}

#undef MMAPZERO_REAL

ABSL_NAMESPACE_END
}  // namespace absl
