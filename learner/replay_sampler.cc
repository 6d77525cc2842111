#include "learner/replay_sampler.h"

#include <utility>

#include "common/base/status_macros.h"
#include "learner/window_positions.h"

namespace mmapzero::learner {

ReplaySampler::ReplaySampler(ReplaySamplerOptions options,
                             const std::string& address)
    : options_(std::move(options)), client_(options_.job_id, address) {}

absl::StatusOr<agent::Batch> ReplaySampler::Sample() {
  v1::SampleBatchRequest request;
  request.set_job_id(options_.job_id);
  request.set_batch_size(options_.batch_size);
  request.set_unroll_steps(options_.unroll_steps);
  request.set_td_steps(options_.td_steps);
  request.set_discount(options_.discount);
  ASSIGN_OR_RETURN(const v1::SampleBatchResponse response,
                   client_.SampleBatch(request, options_.deadline));
  return PositionsFromWindows(response);
}

}  // namespace mmapzero::learner
