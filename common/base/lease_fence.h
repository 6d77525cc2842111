// A fencing token on state that several processes may reach, such as a
// job's learner checkpoints on a volume every learner pod mounts. The
// coordinator numbers each grant of a job's learner lease (the lease
// epoch, rising); a learner claims the fence with its epoch before it
// reads the state and writes only while the fence is not higher. So a
// learner that lost its lease without noticing (partitioned, paused) can
// neither overwrite what its successor saved nor have its late write read
// as the newest: its epoch is lower than the successor's claim.
//
// The fence is the file "<path>.fence" holding the highest epoch claimed;
// an exclusive flock(2) on it makes check-and-write one step against every
// other process on the same file system (NFSv4 maps it to a lock of its
// own). A lock held for more than `lock_wait` (its holder paused
// mid-save) gives Unavailable: try again later. Epoch 0 means unfenced: nothing is checked
// or written.
#ifndef MMAPZERO_COMMON_BASE_LEASE_FENCE_H_
#define MMAPZERO_COMMON_BASE_LEASE_FENCE_H_

#include <cstdint>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace mmapzero {

// Raises the fence of `path` to `epoch` (a new holder, before it reads).
// Aborted naming both epochs when the fence already stands higher; other
// errors name the fence file.
absl::Status ClaimLeaseFence(const std::string& path, int64_t epoch,
                             absl::Duration lock_wait = absl::Seconds(5));

// Runs `write` while holding the fence's lock, if the fence is at most
// `epoch` (raising it to `epoch`); Aborted without running it otherwise.
// Returns `write`'s status.
absl::Status WriteUnderLeaseFence(const std::string& path, int64_t epoch,
                                  absl::FunctionRef<absl::Status()> write,
                                  absl::Duration lock_wait = absl::Seconds(5));

// The epoch the fence of `path` stands at; 0 when there is none.
absl::StatusOr<int64_t> ReadLeaseFence(const std::string& path);

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_BASE_LEASE_FENCE_H_
