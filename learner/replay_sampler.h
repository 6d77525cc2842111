// One job's SampleBatch calls to its replay server (proto/replay.proto),
// each with a deadline, turned into training positions
// (window_positions.h). The address comes from the job's assignment and
// may change (the replay lease passed to another server): SetAddress
// switches the channel for the next call. Thread-safe.
#ifndef MMAPZERO_LEARNER_REPLAY_SAMPLER_H_
#define MMAPZERO_LEARNER_REPLAY_SAMPLER_H_

#include <grpcpp/channel.h>

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "worker/batch_source.h"
#include "proto/replay.grpc.pb.h"

namespace mmapzero::learner {

struct ReplaySamplerOptions {
  std::string job_id;
  int batch_size = 0;
  int unroll_steps = 0;  // K
  int td_steps = 0;      // n
  double discount = 1;
  absl::Duration deadline = absl::Seconds(10);
};

class ReplaySampler {
 public:
  ReplaySampler(ReplaySamplerOptions options, const std::string& address);

  // "" (no replay server yet) makes Sample Unavailable.
  void SetAddress(const std::string& address) ABSL_LOCKS_EXCLUDED(mu_);
  std::string address() const ABSL_LOCKS_EXCLUDED(mu_);

  // One SampleBatch call: the replay's status (FailedPrecondition while
  // the table cannot start training), or the positions.
  absl::StatusOr<worker::Batch> Sample() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const ReplaySamplerOptions options_;
  mutable absl::Mutex mu_;
  std::string address_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<v1::ReplayService::Stub> stub_ ABSL_GUARDED_BY(mu_);
};

}  // namespace mmapzero::learner

#endif  // MMAPZERO_LEARNER_REPLAY_SAMPLER_H_
