// A replay table on disk: <data-dir>/replay/<job>/table.mzr, written
// atomically (common/base/atomic_file.h: a reader or a restart never sees
// half a file, a failed write keeps the previous one).
//
// Format, version 1 (framed as common/agent/snapshot_file.h): "MZRT",
// uint32 version, then records of a uint64 byte length and a serialized
// message (host byte order: read back by the machine that wrote it): one
// mmapzero.v1.ReplayStats (job id and uid, capacity, inserted / sampled /
// reanalysed totals), a uint64 trajectory count, and one
// mmapzero.v1.Trajectory per stored trajectory, oldest first, with its id
// and targets_version. Protobuf for the trajectories keeps the file
// readable by any tool that knows replay.proto. The whole file is built in
// memory before it is written (a table of T stored steps costs about its
// own size again while checkpointing).
#ifndef MMAPZERO_REPLAY_TABLE_CHECKPOINT_H_
#define MMAPZERO_REPLAY_TABLE_CHECKPOINT_H_

#include <string>

#include "absl/status/statusor.h"
#include "replay/replay_table.h"

namespace mmapzero::replay {

inline constexpr char kTableFileName[] = "table.mzr";

// Writes `snapshot` of job `job_id` to `path`.
absl::Status SaveTable(const std::string& path, const std::string& job_id,
                       const TableSnapshot& snapshot);

// NotFound when `path` does not exist; DataLoss naming the path when it is
// damaged or of another format version.
absl::StatusOr<TableSnapshot> LoadTable(const std::string& path);

}  // namespace mmapzero::replay

#endif  // MMAPZERO_REPLAY_TABLE_CHECKPOINT_H_
