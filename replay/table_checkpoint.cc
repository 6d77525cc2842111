#include "replay/table_checkpoint.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/agent/trajectory_proto.h"
#include "common/base/atomic_file.h"

namespace mmapzero::replay {
namespace {

constexpr char kMagic[4] = {'M', 'Z', 'R', 'T'};
constexpr uint32_t kVersion = 1;

template <typename T>
void Put(T value, std::string* out) {
  out->append(reinterpret_cast<const char*>(&value), sizeof(T));
}

void PutMessage(const google::protobuf::MessageLite& message,
                std::string* out) {
  Put<uint64_t>(message.ByteSizeLong(), out);
  message.AppendToString(out);
}

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <typename T>
  bool Get(T* value) {
    if (in_.size() - pos_ < sizeof(T)) return false;
    std::memcpy(value, in_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  bool GetMessage(google::protobuf::MessageLite* message) {
    uint64_t n = 0;
    if (!Get(&n) || n > in_.size() - pos_) return false;
    if (!message->ParseFromArray(in_.data() + pos_, static_cast<int>(n))) {
      return false;
    }
    pos_ += n;
    return true;
  }
  bool done() const { return pos_ == in_.size(); }

 private:
  std::string_view in_;
  size_t pos_ = 0;
};

}  // namespace

absl::Status SaveTable(const std::string& path, const std::string& job_id,
                       const TableSnapshot& snapshot) {
  std::string out(kMagic, sizeof(kMagic));
  Put<uint32_t>(kVersion, &out);
  v1::ReplayStats stats = snapshot.stats;
  stats.set_job_id(job_id);
  PutMessage(stats, &out);
  Put<uint64_t>(snapshot.entries.size(), &out);
  v1::Trajectory proto;
  for (const StoredTrajectory& s : snapshot.entries) {
    agent::TrajectoryToProto(*s.trajectory, &proto);
    proto.set_trajectory_id(s.id);
    proto.set_targets_version(s.targets_version);
    PutMessage(proto, &out);
  }
  return WriteFileAtomically(path, out);
}

absl::StatusOr<TableSnapshot> LoadTable(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  const auto corrupt = [&path](absl::string_view what) {
    return absl::DataLossError(
        absl::StrCat("replay checkpoint ", path, ": ", what));
  };
  if (bytes.size() < sizeof(kMagic) ||
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    return corrupt("not a replay table (bad magic)");
  }
  Reader reader(std::string_view(bytes).substr(sizeof(kMagic)));
  uint32_t version = 0;
  if (!reader.Get(&version) || version != kVersion) {
    return corrupt(
        absl::StrCat("format version ", version, ", expected ", kVersion));
  }
  TableSnapshot snapshot;
  uint64_t count = 0;
  if (!reader.GetMessage(&snapshot.stats) || !reader.Get(&count)) {
    return corrupt("truncated header");
  }
  v1::Trajectory proto;
  for (uint64_t i = 0; i < count; ++i) {
    if (!reader.GetMessage(&proto)) {
      return corrupt(absl::StrCat("truncated at trajectory ", i));
    }
    absl::StatusOr<agent::Trajectory> trajectory = agent::TrajectoryFromProto(
        proto, absl::StrCat("trajectories[", i, "]"));
    if (!trajectory.ok()) return corrupt(trajectory.status().message());
    StoredTrajectory s;
    s.id = proto.trajectory_id();
    s.targets_version = proto.targets_version();
    s.trajectory =
        std::make_shared<const agent::Trajectory>(*std::move(trajectory));
    snapshot.entries.push_back(std::move(s));
  }
  if (!reader.done()) return corrupt("trailing bytes");
  return snapshot;
}

}  // namespace mmapzero::replay
