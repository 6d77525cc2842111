// The framing both replay snapshot formats share (the learner's
// ReplayBuffer, "MZRB", and the replay service's table checkpoint, "MZRT";
// each documents its own records): a 4-byte magic, a uint32 format
// version, then fixed-size values, length-prefixed vectors, strings and
// protobuf messages (a uint64 count, then the bytes), in host byte order: a
// snapshot is read back by the machine that wrote it. A file is built
// whole in memory and written atomically (common/base/atomic_file.h), and
// read whole before it is decoded.
#ifndef MMAPZERO_COMMON_AGENT_SNAPSHOT_FILE_H_
#define MMAPZERO_COMMON_AGENT_SNAPSHOT_FILE_H_

#include <google/protobuf/message_lite.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mmapzero::agent {

struct SnapshotFormat {
  absl::string_view magic;  // "MZRB"
  uint32_t version = 1;     // bumped when the layout changes
  absl::string_view name;   // "replay snapshot": begins every error
  absl::string_view kind;   // what a file of another magic is "not a"
};

class SnapshotWriter {
 public:
  // Starts with the format's magic and version.
  explicit SnapshotWriter(const SnapshotFormat& format);

  template <typename T>
  void Put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  template <typename T>
  void PutVector(const std::vector<T>& values) {
    static_assert(std::is_trivially_copyable_v<T>);
    Put<uint64_t>(values.size());
    out_.append(reinterpret_cast<const char*>(values.data()),
                values.size() * sizeof(T));
  }
  void PutString(absl::string_view s);
  void PutMessage(const google::protobuf::MessageLite& message);

  // Writes the whole snapshot to `path` atomically.
  absl::Status WriteTo(const std::string& path) const;

 private:
  std::string out_;
};

class SnapshotReader {
 public:
  // The file at `path`, read past its magic and version. NotFound when it
  // cannot be opened; DataLoss (Corrupt) for another magic or version.
  static absl::StatusOr<SnapshotReader> Open(const std::string& path,
                                             const SnapshotFormat& format);
  // The same for a file already read: `bytes`, named `path` in errors.
  static absl::StatusOr<SnapshotReader> FromBytes(std::string bytes,
                                                  const std::string& path,
                                                  const SnapshotFormat& format);

  // Each Get is false when the rest of the file is too short or, for a
  // message, does not parse.
  template <typename T>
  bool Get(T* value) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (bytes_.size() - pos_ < sizeof(T)) return false;
    std::memcpy(value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  template <typename T>
  bool GetVector(std::vector<T>* values) {
    uint64_t n = 0;
    if (!Get(&n) || n > (bytes_.size() - pos_) / sizeof(T)) return false;
    values->resize(n);
    // An empty vector's data() may be null: no memcpy at all (fuzzing found
    // the null argument, undefined even for zero bytes).
    if (n > 0) std::memcpy(values->data(), bytes_.data() + pos_, n * sizeof(T));
    pos_ += n * sizeof(T);
    return true;
  }
  bool GetString(std::string* s);
  bool GetMessage(google::protobuf::MessageLite* message);
  // Everything read.
  bool done() const { return pos_ == bytes_.size(); }

  // DataLoss "NAME PATH: what".
  absl::Status Corrupt(absl::string_view what) const;

 private:
  SnapshotReader(std::string bytes, std::string context)
      : bytes_(std::move(bytes)), context_(std::move(context)) {}

  std::string bytes_;
  size_t pos_ = 0;
  std::string context_;  // "NAME PATH"
};

}  // namespace mmapzero::agent

#endif  // MMAPZERO_COMMON_AGENT_SNAPSHOT_FILE_H_
