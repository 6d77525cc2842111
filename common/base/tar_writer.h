// Writes a tar archive (POSIX ustar, what `tar -xf` reads everywhere)
// member by member to a sink, so one file can carry several: `mmapctl
// archive` keeps a job's status, settings, workload, best solution,
// history and network in one. Regular files only, names of at most 100
// bytes (no prefix field), each at most 8 GiB - 1 (the size field's 11
// octal digits), owned by uid and gid 0.
#ifndef MMAPZERO_COMMON_BASE_TAR_WRITER_H_
#define MMAPZERO_COMMON_BASE_TAR_WRITER_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"

namespace mmapzero {

class TarWriter {
 public:
  // Receives the archive's bytes in order (AtomicFileWriter::Append).
  using Sink = std::function<absl::Status(std::string_view bytes)>;

  // Members get modification time `mtime_unix_s`.
  TarWriter(Sink sink, int64_t mtime_unix_s)
      : sink_(std::move(sink)), mtime_unix_s_(mtime_unix_s) {}

  // One member: its header, `contents`, and zeros to the next 512-byte
  // block. InvalidArgument naming the member for an empty or too long
  // name, or too many bytes; the sink's error otherwise.
  absl::Status AddFile(std::string_view name, std::string_view contents,
                       mode_t mode = 0644);
  // The end-of-archive mark (two zero blocks). No AddFile after it.
  absl::Status Finish();

  // Bytes handed to the sink so far.
  int64_t bytes_written() const { return bytes_written_; }

 private:
  absl::Status Write(std::string_view bytes);

  Sink sink_;
  const int64_t mtime_unix_s_;
  int64_t bytes_written_ = 0;
  bool finished_ = false;
};

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_BASE_TAR_WRITER_H_
