#include "replay/table_checkpoint.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/agent/snapshot_file.h"
#include "common/agent/trajectory_proto.h"
#include "common/base/atomic_file.h"
#include "common/base/crc32c.h"
#include "common/base/read_file.h"

namespace mmapzero::replay {
namespace {

constexpr agent::SnapshotFormat kFormat = {.magic = "MZRT",
                                           .version = 2,
                                           .name = "replay checkpoint",
                                           .kind = "replay table"};
// Version 1: the same records without the trailer; still read.
constexpr agent::SnapshotFormat kFormatV1 = {.magic = "MZRT",
                                             .version = 1,
                                             .name = "replay checkpoint",
                                             .kind = "replay table"};
// The trailer: the CRC32C of everything before it, then this mark.
constexpr std::string_view kEndMark = "MZRE";
constexpr size_t kTrailerBytes = sizeof(uint32_t) + kEndMark.size();
// Bytes gathered before each write to the file.
constexpr size_t kWriteChunkBytes = size_t{1} << 20;

// The records of snapshot_file.h's framing, written to the file as they
// come (in 1-MiB pieces) with their checksum kept on the way.
class TableFileWriter {
 public:
  explicit TableFileWriter(std::unique_ptr<AtomicFileWriter> file)
      : file_(std::move(file)) {
    PutRaw(std::string_view(kFormat.magic.data(), kFormat.magic.size()));
    Put<uint32_t>(kFormat.version);
  }

  template <typename T>
  void Put(T value) {
    PutRaw(std::string_view(reinterpret_cast<const char*>(&value), sizeof(T)));
  }
  void PutMessage(const google::protobuf::MessageLite& message) {
    message.SerializeToString(&scratch_);
    Put<uint64_t>(scratch_.size());
    PutRaw(scratch_);
  }

  // The trailer, then the file renamed into place with the one before kept
  // as `previous`.
  absl::Status Finish(const std::string& previous) {
    const uint32_t crc = crc_;
    buffer_.append(reinterpret_cast<const char*>(&crc), sizeof(crc));
    buffer_.append(kEndMark);
    Flush();
    if (!status_.ok()) return status_;
    return file_->Commit(previous);
  }

 private:
  void PutRaw(std::string_view bytes) {
    crc_ = Crc32cExtend(crc_, bytes);
    buffer_.append(bytes);
    if (buffer_.size() >= kWriteChunkBytes) Flush();
  }
  void Flush() {
    if (status_.ok()) status_ = file_->Append(buffer_);
    buffer_.clear();
  }

  std::unique_ptr<AtomicFileWriter> file_;
  std::string buffer_;
  std::string scratch_;
  uint32_t crc_ = 0;
  absl::Status status_;
};

absl::Status Damaged(const std::string& path, const std::string& what) {
  return absl::DataLossError(
      absl::StrCat(kFormat.name, " ", path, ": ", what));
}

// A file error with the format's name before it.
absl::Status Named(const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat(kFormat.name, " ", status.message()));
}

// The format version in a file's first bytes; 0 when they are too few.
uint32_t VersionOf(const std::string& bytes) {
  uint32_t version = 0;
  if (bytes.size() >= kFormat.magic.size() + sizeof(version)) {
    std::memcpy(&version, bytes.data() + kFormat.magic.size(), sizeof(version));
  }
  return version;
}

// The format to read a file in: version 1's, else the current one (whose
// reader refuses any other version).
const agent::SnapshotFormat& FormatOf(const std::string& bytes) {
  return VersionOf(bytes) == kFormatV1.version ? kFormatV1 : kFormat;
}

// The file's records (past magic and version) once its trailer checks out.
absl::StatusOr<agent::SnapshotReader> OpenChecked(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadWholeFile(path);
  if (!bytes.ok()) return Named(bytes.status());
  const agent::SnapshotFormat& format = FormatOf(*bytes);
  // Only the current version has a trailer (end mark and checksum).
  if (VersionOf(*bytes) == kFormat.version) {
    if (bytes->size() <
            kFormat.magic.size() + sizeof(uint32_t) + kTrailerBytes ||
        !std::string_view(*bytes).ends_with(kEndMark)) {
      return Damaged(path, "no end mark (the file was cut short)");
    }
    const size_t body = bytes->size() - kTrailerBytes;
    uint32_t stored = 0;
    std::memcpy(&stored, bytes->data() + body, sizeof(stored));
    const uint32_t actual = Crc32c(std::string_view(*bytes).substr(0, body));
    if (stored != actual) {
      return Damaged(
          path, absl::StrCat("checksum ", actual, ", the file says ", stored,
                             " (damaged after it was written)"));
    }
    bytes->resize(body);
  }
  return agent::SnapshotReader::FromBytes(*std::move(bytes), path, format);
}

}  // namespace

absl::Status SaveTable(const std::string& path, const std::string& job_id,
                       const TableSnapshot& snapshot) {
  absl::StatusOr<std::unique_ptr<AtomicFileWriter>> file =
      AtomicFileWriter::Open(path);
  if (!file.ok()) return file.status();
  TableFileWriter out(*std::move(file));
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
  return out.Finish(PreviousTablePath(path));
}

std::string PreviousTablePath(const std::string& path) {
  return path + ".old";
}

absl::StatusOr<v1::ReplayStats> ReadTableStats(const std::string& path) {
  // The stats are a few dozen bytes; the rest of the file is not read.
  constexpr size_t kStartBytes = size_t{1} << 16;
  absl::StatusOr<std::string> start = ReadFilePrefix(path, kStartBytes);
  if (!start.ok()) return Named(start.status());
  const agent::SnapshotFormat& format = FormatOf(*start);
  absl::StatusOr<agent::SnapshotReader> reader =
      agent::SnapshotReader::FromBytes(*std::move(start), path, format);
  if (!reader.ok()) return reader.status();
  v1::ReplayStats stats;
  if (!reader->GetMessage(&stats)) {
    return reader->Corrupt("its first record is not a table's stats");
  }
  return stats;
}

absl::StatusOr<TableSnapshot> LoadTable(const std::string& path) {
  absl::StatusOr<agent::SnapshotReader> reader = OpenChecked(path);
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
