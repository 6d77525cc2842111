#include "common/agent/snapshot_file.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/base/atomic_file.h"
#include "common/base/read_file.h"

namespace mmapzero::agent {

SnapshotWriter::SnapshotWriter(const SnapshotFormat& format)
    : out_(format.magic.data(), format.magic.size()) {
  Put<uint32_t>(format.version);
}

void SnapshotWriter::PutString(absl::string_view s) {
  Put<uint64_t>(s.size());
  out_.append(s.data(), s.size());
}

void SnapshotWriter::PutMessage(const google::protobuf::MessageLite& message) {
  Put<uint64_t>(message.ByteSizeLong());
  message.AppendToString(&out_);
}

absl::Status SnapshotWriter::WriteTo(const std::string& path) const {
  return WriteFileAtomically(path, out_);
}

absl::StatusOr<SnapshotReader> SnapshotReader::Open(
    const std::string& path, const SnapshotFormat& format) {
  absl::StatusOr<std::string> bytes = ReadWholeFile(path);
  if (!bytes.ok()) {
    return absl::Status(bytes.status().code(),
                        absl::StrCat(format.name, " ", bytes.status().message()));
  }
  return FromBytes(*std::move(bytes), path, format);
}

absl::StatusOr<SnapshotReader> SnapshotReader::FromBytes(
    std::string bytes, const std::string& path, const SnapshotFormat& format) {
  SnapshotReader reader(std::move(bytes), absl::StrCat(format.name, " ", path));
  if (!absl::StartsWith(reader.bytes_, format.magic)) {
    return reader.Corrupt(absl::StrCat("not a ", format.kind, " (bad magic)"));
  }
  reader.pos_ = format.magic.size();
  uint32_t version = 0;
  if (!reader.Get(&version) || version != format.version) {
    return reader.Corrupt(absl::StrCat("format version ", version,
                                       ", expected ", format.version));
  }
  return reader;
}

bool SnapshotReader::GetString(std::string* s) {
  uint64_t n = 0;
  if (!Get(&n) || n > bytes_.size() - pos_) return false;
  s->assign(bytes_.data() + pos_, n);
  pos_ += n;
  return true;
}

bool SnapshotReader::GetMessage(google::protobuf::MessageLite* message) {
  uint64_t n = 0;
  if (!Get(&n) || n > bytes_.size() - pos_) return false;
  if (!message->ParseFromArray(bytes_.data() + pos_, static_cast<int>(n))) {
    return false;
  }
  pos_ += n;
  return true;
}

absl::Status SnapshotReader::Corrupt(absl::string_view what) const {
  return absl::DataLossError(absl::StrCat(context_, ": ", what));
}

}  // namespace mmapzero::agent
