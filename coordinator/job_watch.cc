#include "coordinator/job_watch.h"

#include <utility>

#include "absl/time/clock.h"
#include "common/base/status_macros.h"
#include "common/rpc/enum_names.h"

namespace mmapzero::coordinator {
absl::Status JobWatch::Run(
    const std::string& job_id,
    absl::FunctionRef<bool(const v1::JobProgress&)> write,
    absl::FunctionRef<bool()> cancelled) {
  // Any value but the current one returns at once; the first message is
  // never a "best improved" one.
  ASSIGN_OR_RETURN(
      JobSnapshot snapshot,
      coordinator_->AwaitJobChange(job_id, ~uint64_t{0}, absl::Now()));
  uint64_t best_seen = snapshot.best_change;
  while (true) {
    v1::JobProgress progress;
    progress.set_best_improved(snapshot.best_change != best_seen);
    best_seen = snapshot.best_change;
    *progress.mutable_job() = std::move(snapshot.status);
    if (!write(progress)) {
      return absl::CancelledError("the watcher went away");
    }
    if (rpc::IsFinalJobState(progress.job().state())) return absl::OkStatus();
    if (coordinator_->AwaitClosed(options_.min_interval)) {
      return absl::UnavailableError("the coordinator is shutting down");
    }
    const uint64_t seen = snapshot.change;
    do {
      if (cancelled()) return absl::CancelledError("the watcher went away");
      ASSIGN_OR_RETURN(
          snapshot, coordinator_->AwaitJobChange(job_id, seen,
                                                 absl::Now() + options_.poll));
    } while (snapshot.change == seen);
  }
}

}  // namespace mmapzero::coordinator
