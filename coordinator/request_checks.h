// Checks of what clients send, before anything changes: each returns
// InvalidArgument naming the request field and the value it got, so a bad
// request gets a clear gRPC status and leaves the store untouched.
#ifndef MMAPZERO_COORDINATOR_REQUEST_CHECKS_H_
#define MMAPZERO_COORDINATOR_REQUEST_CHECKS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
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
// "workload.<field>"), the request_id has at most kMaxRequestIdLength
// letters, digits, '.', '_', '-', and the name at most kMaxJobNameBytes
// bytes and no control characters (it shows in status lines, the
// dashboard and every metrics scrape).
inline constexpr size_t kMaxRequestIdLength = 128;
inline constexpr size_t kMaxJobNameBytes = 256;
absl::Status CheckSubmittedWorkload(const v1::SubmitJobRequest& request);

// OK when `text` has at most `max_bytes` bytes and no control characters
// (what the coordinator shows in status lines, the dashboard and metrics
// labels); InvalidArgument naming `field` otherwise.
absl::Status CheckShownText(absl::string_view field, const std::string& text,
                            size_t max_bytes);

// The job's name: the request's, or the workload's cut to kMaxJobNameBytes
// (at a UTF-8 character boundary) when the request gives none.
std::string JobNameOf(const v1::SubmitJobRequest& request);

absl::Status CheckListJobs(const v1::ListJobsRequest& request);

// A known role, capacity in [0, 1024] (0 means 1), a name and an address of
// at most kMaxWorkerTextBytes bytes each without control characters, and an
// address for roles that serve (learner, replay).
inline constexpr size_t kMaxWorkerTextBytes = 256;
absl::Status CheckRegister(const v1::RegisterRequest& request);

// Counters are >= 0 (field "jobs[i].<counter>").
absl::Status CheckHeartbeat(const v1::HeartbeatRequest& request);

}  // namespace mmapzero::coordinator

#endif  // MMAPZERO_COORDINATOR_REQUEST_CHECKS_H_
