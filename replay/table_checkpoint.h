// A replay table on disk: <data-dir>/replay/<job>/table.mzr, the one
// before it beside it as table.mzr.old.
//
// Format, version 2 (framed as common/agent/snapshot_file.h): "MZRT",
// uint32 version, then records of a uint64 byte length and a serialized
// message (host byte order: read back by the machine that wrote it): one
// mmapzero.v1.ReplayStats (job id and uid, capacity, inserted / sampled /
// reanalysed totals), a uint64 trajectory count, and one
// mmapzero.v1.Trajectory per stored trajectory, oldest first, with its id
// and targets_version; then a trailer: the CRC32C of every byte before it
// and the mark "MZRE". So a file damaged after it was written (bit flips)
// or cut short is told from a good one. Version 1 files (no trailer) are
// still read. Protobuf for the trajectories keeps the file readable by any
// tool that knows replay.proto.
//
// The file is streamed to disk in 1-MiB pieces (a checkpoint costs no
// second copy of the table in memory) through a temporary file that is
// flushed and renamed into place (common/base/atomic_file.h: a reader or
// a restart never sees half a file; a failed write keeps the previous
// ones).
#ifndef MMAPZERO_REPLAY_TABLE_CHECKPOINT_H_
#define MMAPZERO_REPLAY_TABLE_CHECKPOINT_H_

#include <string>

#include "absl/status/statusor.h"
#include "replay/replay_table.h"

namespace mmapzero::replay {

inline constexpr char kTableFileName[] = "table.mzr";

// Writes `snapshot` of job `job_id` to `path`, keeping the file it
// replaces as PreviousTablePath(path).
absl::Status SaveTable(const std::string& path, const std::string& job_id,
                       const TableSnapshot& snapshot);
std::string PreviousTablePath(const std::string& path);

// NotFound when `path` does not exist; DataLoss naming the path when it is
// damaged (checksum, end mark, records) or of another format version.
absl::StatusOr<TableSnapshot> LoadTable(const std::string& path);

// The table's ReplayStats (job id and uid, totals) from the start of the
// file alone, unchecked: what a server needs to know of a table it does
// not load yet. LoadTable checks the whole file when the table is needed.
// NotFound when `path` does not exist; DataLoss when its start is not a
// table checkpoint's.
absl::StatusOr<v1::ReplayStats> ReadTableStats(const std::string& path);

}  // namespace mmapzero::replay

#endif  // MMAPZERO_REPLAY_TABLE_CHECKPOINT_H_
