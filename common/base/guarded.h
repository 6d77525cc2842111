// A value that several threads share, behind a mutex of its own: readers
// get a copy or look at it inside Read, writers change it inside Update,
// and nothing reaches the value any other way.
//
// Why: the classes that hold LibTorch objects are compiled by gcc only (the
// clang build, which checks thread-safety annotations, has no LibTorch).
// Their shared state goes through a Guarded, whose locking is here, in a
// header without LibTorch, checked by clang through guarded_test.cc.
#ifndef MMAPZERO_COMMON_BASE_GUARDED_H_
#define MMAPZERO_COMMON_BASE_GUARDED_H_

#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace mmapzero {

template <typename T>
class Guarded {
 public:
  Guarded() = default;
  explicit Guarded(T value) : value_(std::move(value)) {}
  Guarded(const Guarded&) = delete;
  Guarded& operator=(const Guarded&) = delete;

  // A copy of the value.
  T Get() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    return value_;
  }
  // `read(const T&)` under the lock; returns what it returns.
  template <typename Reader>
  auto Read(Reader&& read) const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    return std::forward<Reader>(read)(static_cast<const T&>(value_));
  }
  // `change(T&)` under the lock; returns what it returns.
  template <typename Changer>
  auto Update(Changer&& change) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    return std::forward<Changer>(change)(value_);
  }
  // Blocks until `ready(const T&)` holds (checked under the lock, after
  // each Update) or `timeout` passed; whether it holds.
  template <typename Ready>
  bool AwaitWithTimeout(Ready ready, absl::Duration timeout) const
      ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    const Waiter<Ready> waiter{&value_, &ready};
    return mu_.AwaitWithTimeout(
        absl::Condition(&waiter, &Waiter<Ready>::Holds), timeout);
  }

 private:
  template <typename Ready>
  struct Waiter {
    const T* value;
    Ready* ready;
    bool Holds() const { return (*ready)(*value); }
  };

  mutable absl::Mutex mu_;
  T value_ ABSL_GUARDED_BY(mu_){};
};

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_BASE_GUARDED_H_
