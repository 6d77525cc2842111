// The short lower-case names of the job-state and worker-role enums, as
// users, metrics labels, logs and the dashboard show them: "running" for
// JOB_STATE_RUNNING, "actor" for WORKER_ROLE_ACTOR; "state-N" / "role-N"
// for a number the enum does not name. And which job states are final.
#ifndef MMAPZERO_COMMON_RPC_ENUM_NAMES_H_
#define MMAPZERO_COMMON_RPC_ENUM_NAMES_H_

#include <string>

#include "proto/job.pb.h"
#include "proto/worker.pb.h"

namespace mmapzero::rpc {

std::string JobStateName(v1::JobState state);
std::string WorkerRoleName(v1::WorkerRole role);

// Done, cancelled or failed: the job has ended (it runs again only when
// resumed).
bool IsFinalJobState(v1::JobState state);

}  // namespace mmapzero::rpc

#endif  // MMAPZERO_COMMON_RPC_ENUM_NAMES_H_
