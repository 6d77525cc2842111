// Checks of what clients send, before anything changes: each returns
// InvalidArgument naming the request field and the value it got, so a bad
// request gets a clear gRPC status and leaves the store untouched.
#ifndef MMAPZERO_COORDINATOR_REQUEST_CHECKS_H_
#define MMAPZERO_COORDINATOR_REQUEST_CHECKS_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/job.pb.h"
#include "proto/muzero.pb.h"
#include "proto/worker.pb.h"

namespace mmapzero::coordinator {

// The most a job may run: 24 hours.
inline constexpr int64_t kMaxWallSeconds = 24 * 60 * 60;

// The budget to store: wall_seconds in [0, 86400] (0 means the maximum),
// learner_steps >= 0 (0: none).
absl::StatusOr<v1::Budget> CheckBudget(const v1::Budget& budget);

// The training configuration a submission asks for: its config (checked),
// its preset, or the "cpu" preset when it gives neither.
absl::StatusOr<MuZeroConfig> TrainingConfigOf(
    const v1::SubmitJobRequest& request);

// The workload is present and passes CheckWorkload (errors name
// "workload.<field>"), and the request_id has at most kMaxRequestIdLength
// letters, digits, '.', '_', '-'.
inline constexpr size_t kMaxRequestIdLength = 128;
absl::Status CheckSubmittedWorkload(const v1::SubmitJobRequest& request);

absl::Status CheckListJobs(const v1::ListJobsRequest& request);

// A known role, capacity in [0, 1024] (0 means 1), an address for roles that
// serve (learner, replay).
absl::Status CheckRegister(const v1::RegisterRequest& request);

// Counters are >= 0 (field "jobs[i].<counter>").
absl::Status CheckHeartbeat(const v1::HeartbeatRequest& request);

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_REQUEST_CHECKS_H_
