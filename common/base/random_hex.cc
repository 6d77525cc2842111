#include "common/base/random_hex.h"

#include <random>

#include "absl/strings/str_cat.h"

namespace mmapzero {

std::string RandomHex128() {
  std::random_device device;
  std::string hex;
  for (int i = 0; i < 4; ++i) {
    absl::StrAppend(&hex, absl::Hex(device(), absl::kZeroPad8));
  }
  return hex;
}

}  // namespace mmapzero
