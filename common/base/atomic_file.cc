#include "common/base/atomic_file.h"

#include <cstdio>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace mmapzero {

absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view contents) {
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) {
      return absl::PermissionDeniedError(
          absl::StrCat(path, ": cannot open ", temp, " for writing"));
    }
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    if (!out.flush()) {
      out.close();
      std::remove(temp.c_str());
      return absl::DataLossError(absl::StrCat(temp, ": write failed"));
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot rename ", temp, " into place"));
  }
  return absl::OkStatus();
}

}  // namespace mmapzero
