#include "replay/table_checkpoint.h"

#include <cstdint>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/agent/snapshot_file.h"
#include "common/agent/trajectory_proto.h"

namespace mmapzero::replay {
namespace {

constexpr agent::SnapshotFormat kFormat = {.magic = "MZRT",
                                           .version = 1,
                                           .name = "replay checkpoint",
                                           .kind = "replay table"};

}  // namespace

absl::Status SaveTable(const std::string& path, const std::string& job_id,
                       const TableSnapshot& snapshot) {
  agent::SnapshotWriter out(kFormat);
  v1::ReplayStats stats = snapshot.stats;
  stats.set_job_id(job_id);
  out.PutMessage(stats);
  out.Put<uint64_t>(snapshot.entries.size());
  v1::Trajectory proto;
  for (const StoredTrajectory& s : snapshot.entries) {
    agent::TrajectoryToProto(*s.trajectory, &proto);
    proto.set_trajectory_id(s.id);
    proto.set_targets_version(s.targets_version);
    out.PutMessage(proto);
  }
  return out.WriteTo(path);
}

absl::StatusOr<TableSnapshot> LoadTable(const std::string& path) {
  absl::StatusOr<agent::SnapshotReader> reader =
      agent::SnapshotReader::Open(path, kFormat);
  if (!reader.ok()) return reader.status();
  TableSnapshot snapshot;
  uint64_t count = 0;
  if (!reader->GetMessage(&snapshot.stats) || !reader->Get(&count)) {
    return reader->Corrupt("truncated header");
  }
  v1::Trajectory proto;
  for (uint64_t i = 0; i < count; ++i) {
    if (!reader->GetMessage(&proto)) {
      return reader->Corrupt(absl::StrCat("truncated at trajectory ", i));
    }
    absl::StatusOr<agent::Trajectory> trajectory = agent::TrajectoryFromProto(
        proto, absl::StrCat("trajectories[", i, "]"));
    if (!trajectory.ok()) return reader->Corrupt(trajectory.status().message());
    StoredTrajectory s;
    s.id = proto.trajectory_id();
    s.targets_version = proto.targets_version();
    s.trajectory =
        std::make_shared<const agent::Trajectory>(*std::move(trajectory));
    snapshot.entries.push_back(std::move(s));
  }
  if (!reader->done()) return reader->Corrupt("trailing bytes");
  return snapshot;
}

}  // namespace mmapzero::replay
