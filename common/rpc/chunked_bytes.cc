#include "common/rpc/chunked_bytes.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/rpc/parameter_client.h"

namespace mmapzero::rpc {

absl::StatusOr<int64_t> ChunkBytesOf(int64_t requested, int64_t default_bytes,
                                     int64_t max_bytes) {
  if (requested < 0 || requested > max_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_chunk_bytes: must be 0 (default, ", default_bytes,
                     ") to ", max_bytes, ", got ", requested));
  }
  return requested > 0 ? requested : default_bytes;
}

absl::Status ChunkAssembler::Add(int64_t offset, int64_t total_bytes,
                                 const std::string& data) {
  if (!damaged_.ok()) return damaged_;
  if (total_bytes_ < 0) {  // the first chunk
    if (total_bytes < 0 || total_bytes > max_total_bytes_) {
      damaged_ = absl::DataLossError(absl::StrCat("total_bytes ", total_bytes));
      return damaged_;
    }
    total_bytes_ = total_bytes;
    bytes_.reserve(static_cast<size_t>(total_bytes));
  }
  const int64_t have = static_cast<int64_t>(bytes_.size());
  if (total_bytes != total_bytes_) {
    damaged_ = absl::DataLossError(
        absl::StrCat("chunk at offset ", offset, " says ", total_bytes,
                     " bytes in all, the first said ", total_bytes_));
  } else if (offset != have) {
    damaged_ = absl::DataLossError(
        absl::StrCat("chunk at offset ", offset, ", expected ", have));
  } else if (have + static_cast<int64_t>(data.size()) > total_bytes_) {
    damaged_ = absl::DataLossError(
        absl::StrCat("chunks run past total_bytes ", total_bytes_));
  } else {
    bytes_ += data;
  }
  return damaged_;
}

absl::StatusOr<std::string> ChunkAssembler::Finish(uint32_t crc32c) {
  if (!damaged_.ok()) return damaged_;
  if (total_bytes_ < 0) {
    return absl::DataLossError("the stream ended without a chunk");
  }
  if (static_cast<int64_t>(bytes_.size()) != total_bytes_) {
    return absl::DataLossError(
        absl::StrCat("got ", bytes_.size(), " of ", total_bytes_, " bytes"));
  }
  if (const uint32_t crc = Crc32c(bytes_); crc != crc32c) {
    return absl::DataLossError(
        absl::StrCat("crc32c ", crc, " differs from the sent ", crc32c));
  }
  return std::move(bytes_);
}

}  // namespace mmapzero::rpc
