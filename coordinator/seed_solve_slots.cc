#include "coordinator/seed_solve_slots.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace mmapzero::coordinator {

SeedSolveSlots::Slot::~Slot() {
  if (owner_ != nullptr) owner_->Release();
}

absl::StatusOr<SeedSolveSlots::Slot> SeedSolveSlots::Acquire(
    absl::Duration max_wait, const std::function<bool()>& caller_gone) {
  const absl::Time give_up = absl::Now() + max_wait;
  absl::MutexLock lock(&mu_);
  ++waiting_;
  const auto free = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    return in_use_ < slots_;
  };
  while (!free()) {
    const absl::Time now = absl::Now();
    if (now >= give_up) {
      --waiting_;
      return absl::ResourceExhaustedError(absl::StrCat(
          "the coordinator is busy: ", in_use_,
          " submissions are being seed-solved and ", waiting_,
          " more wait; none freed within ", absl::FormatDuration(max_wait),
          "; submit again later"));
    }
    mu_.AwaitWithDeadline(absl::Condition(&free),
                          std::min(give_up, now + absl::Milliseconds(50)));
    if (!free() && caller_gone && caller_gone()) {
      --waiting_;
      return absl::CancelledError(
          "the caller went away while waiting to be seed-solved; no job was "
          "made");
    }
  }
  --waiting_;
  ++in_use_;
  return Slot(this);
}

void SeedSolveSlots::Release() {
  absl::MutexLock lock(&mu_);
  --in_use_;
}

int SeedSolveSlots::in_use() const {
  absl::MutexLock lock(&mu_);
  return in_use_;
}

int SeedSolveSlots::waiting() const {
  absl::MutexLock lock(&mu_);
  return waiting_;
}

}  // namespace mmapzero::coordinator
