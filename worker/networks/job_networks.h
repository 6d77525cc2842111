// What every job that follows its learner starts from (actor and reanalyse
// jobs): the job's MuZeroConfig checked, the network the job plays or
// searches with, and a ParameterPoller that fetches the learner's newest
// parameters into a second network of the same architecture (its staging
// copy). Errors name the job, as InJob does for the rest of a job's start.
#ifndef MMAPZERO_WORKER_NETWORKS_JOB_NETWORKS_H_
#define MMAPZERO_WORKER_NETWORKS_JOB_NETWORKS_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "worker/networks/parameter_poller.h"
#include "common/model/networks.h"
#include "proto/muzero.pb.h"

namespace mmapzero::worker {

struct JobNetworks {
  model::MuZeroNetwork network;
  std::unique_ptr<ParameterPoller> poller;  // polls every `parameter_poll`
};

// InvalidArgument naming the field for a config that does not build a
// network.
absl::StatusOr<JobNetworks> CreateJobNetworks(const std::string& job_id,
                                              const MuZeroConfig& config,
                                              absl::Duration parameter_poll);

// `status` prefixed with "job JOB_ID: ", its code kept.
absl::Status InJob(const std::string& job_id, const absl::Status& status);

}  // namespace mmapzero::worker

#endif  // MMAPZERO_WORKER_NETWORKS_JOB_NETWORKS_H_
