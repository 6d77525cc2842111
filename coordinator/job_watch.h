// The protocol state of one JobService.WatchJob stream, apart from gRPC so a
// test can drive it with a fake sink: one message at once, then one per
// change of the job (no more often than `min_interval`), ending after the
// message that shows a final state, when the client goes away, or when the
// coordinator closes.
#ifndef MMAPZERO_COORDINATOR_JOB_WATCH_H_
#define MMAPZERO_COORDINATOR_JOB_WATCH_H_

#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "coordinator/coordinator.h"
#include "proto/job.pb.h"

namespace mmapzero::coordinator {

struct JobWatchOptions {
  absl::Duration min_interval = absl::Milliseconds(200);
  // How often a quiet watch checks whether its client is still there.
  absl::Duration poll = absl::Seconds(1);

  bool operator==(const JobWatchOptions&) const = default;
};

class JobWatch {
 public:
  JobWatch(Coordinator* coordinator, JobWatchOptions options)
      : coordinator_(coordinator), options_(options) {}

  // `write` returns false when the client is gone; `cancelled` says so too.
  // OK after the final state was written; NotFound for an unknown job;
  // Cancelled when the client went away; Unavailable on shutdown.
  absl::Status Run(const std::string& job_id,
                   absl::FunctionRef<bool(const v1::JobProgress&)> write,
                   absl::FunctionRef<bool()> cancelled);

 private:
  Coordinator* coordinator_;
  JobWatchOptions options_;
};

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_JOB_WATCH_H_
