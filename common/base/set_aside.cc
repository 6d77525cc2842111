#include "common/base/set_aside.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace mmapzero {

absl::StatusOr<std::string> SetAsideDamaged(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::exists(path, error)) return std::string();
  std::string aside;
  for (int n = 1; aside.empty() || fs::exists(aside, error); ++n) {
    aside = absl::StrCat(path, ".damaged-", n);
  }
  fs::rename(path, aside, error);
  if (error) {
    return absl::UnavailableError(absl::StrCat(
        path, ": cannot set it aside as ", aside, ": ", error.message()));
  }
  return aside;
}

}  // namespace mmapzero
