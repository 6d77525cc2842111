// One job's SampleBatch calls to its replay server (proto/replay.proto),
// each with a deadline, turned into training positions
// (window_positions.h). The address comes from the job's assignment and
// may change (the replay lease passed to another server): SetAddress
// switches the channel for the next call. Thread-safe.
#ifndef MMAPZERO_LEARNER_REPLAY_SAMPLER_H_
#define MMAPZERO_LEARNER_REPLAY_SAMPLER_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/agent/batch_source.h"
#include "worker/replay_client.h"

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
  void SetAddress(const std::string& address) { client_.SetAddress(address); }
  std::string address() const { return client_.address(); }

  // One SampleBatch call: the replay's status (FailedPrecondition while
  // the table cannot start training), or the positions.
  absl::StatusOr<agent::Batch> Sample();

 private:
  const ReplaySamplerOptions options_;
  worker::ReplayClient client_;
};

}  // namespace mmapzero::learner

#endif  // MMAPZERO_LEARNER_REPLAY_SAMPLER_H_
