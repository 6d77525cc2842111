#include "common/base/read_file.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace mmapzero {

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace mmapzero
