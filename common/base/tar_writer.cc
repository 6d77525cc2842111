#include "common/base/tar_writer.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace mmapzero {
namespace {

constexpr size_t kBlock = 512;
constexpr size_t kMaxName = 100;
constexpr int64_t kMaxSize = (int64_t{1} << 33) - 1;  // 11 octal digits

// The ustar header fields (POSIX.1-1988), by offset and width.
struct Field {
  size_t offset;
  size_t width;
};
constexpr Field kName{0, 100};
constexpr Field kMode{100, 8};
constexpr Field kUid{108, 8};
constexpr Field kGid{116, 8};
constexpr Field kSize{124, 12};
constexpr Field kMtime{136, 12};
constexpr Field kChecksum{148, 8};
constexpr size_t kTypeFlag = 156;
constexpr Field kMagic{257, 6};
constexpr Field kVersion{263, 2};

using Header = std::array<char, kBlock>;

void Put(Header& header, Field field, std::string_view text) {
  std::memcpy(header.data() + field.offset, text.data(),
              std::min(text.size(), field.width));
}

// `value` in octal, zero-padded to the field's width less its NUL.
void PutOctal(Header& header, Field field, int64_t value) {
  Put(header, field, absl::StrFormat("%0*o", field.width - 1, value));
}

}  // namespace

absl::Status TarWriter::Write(std::string_view bytes) {
  bytes_written_ += static_cast<int64_t>(bytes.size());
  return sink_(bytes);
}

absl::Status TarWriter::AddFile(std::string_view name,
                                std::string_view contents, mode_t mode) {
  if (finished_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "tar member '", std::string(name), "': the archive is finished"));
  }
  if (name.empty() || name.size() > kMaxName) {
    return absl::InvalidArgumentError(
        absl::StrCat("tar member '", std::string(name), "': a name of 1 to ",
                     kMaxName, " bytes, got ", name.size()));
  }
  const auto size = static_cast<int64_t>(contents.size());
  if (size > kMaxSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("tar member '", std::string(name), "': ", size,
                     " bytes, at most ", kMaxSize));
  }
  Header header{};
  Put(header, kName, name);
  PutOctal(header, kMode, mode & 07777);
  PutOctal(header, kUid, 0);
  PutOctal(header, kGid, 0);
  PutOctal(header, kSize, size);
  PutOctal(header, kMtime, std::max<int64_t>(mtime_unix_s_, 0));
  header[kTypeFlag] = '0';                            // a regular file
  Put(header, kMagic, std::string_view("ustar", 6));  // with its NUL
  Put(header, kVersion, "00");
  // The checksum: every header byte summed as unsigned, its own field
  // counted as spaces; six octal digits, NUL, space.
  Put(header, kChecksum, "        ");
  int64_t checksum = 0;
  for (const char c : header) checksum += static_cast<unsigned char>(c);
  Put(header, kChecksum, absl::StrFormat("%06o", checksum));
  header[kChecksum.offset + 6] = '\0';
  header[kChecksum.offset + 7] = ' ';

  if (absl::Status status = Write({header.data(), header.size()});
      !status.ok()) {
    return status;
  }
  if (absl::Status status = Write(contents); !status.ok()) return status;
  static constexpr std::array<char, kBlock> kZeros{};
  const size_t padding = (kBlock - contents.size() % kBlock) % kBlock;
  return Write({kZeros.data(), padding});
}

absl::Status TarWriter::Finish() {
  if (finished_) return absl::OkStatus();
  finished_ = true;
  static constexpr std::array<char, 2 * kBlock> kEnd{};
  return Write({kEnd.data(), kEnd.size()});
}

}  // namespace mmapzero
