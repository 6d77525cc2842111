#include "common/service/torch_threads.h"

#include "absl/strings/str_cat.h"

namespace mmapzero::service {

absl::StatusOr<int> TorchThreadsFromConfig(int threads) {
  if (threads < 0 || threads > 1024) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--torch-threads: must be 0 (LibTorch's default) to 1024, got ",
        threads));
  }
  return threads;
}

}  // namespace mmapzero::service
