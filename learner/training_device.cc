#include "learner/training_device.h"

#include <torch/torch.h>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

namespace mmapzero::learner {

absl::Status CheckDeviceName(const std::string& name) {
  if (name == "auto" || name == "cpu" || name == "cuda") {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--device: auto, cpu or cuda, got '", name, "'"));
}

absl::StatusOr<std::string> ResolveDeviceName(const std::string& name) {
  RETURN_IF_ERROR(CheckDeviceName(name));
  const bool cuda = torch::cuda::is_available();
  if (name == "auto") return cuda ? "cuda" : "cpu";
  if (name == "cpu") return "cpu";
  if (!cuda) {
    return absl::FailedPreconditionError(
        "--device=cuda: LibTorch sees no CUDA device (a CPU-only LibTorch "
        "build, or no GPU visible to this process); refusing to train on "
        "the CPU instead");
  }
  return "cuda";
}

}  // namespace mmapzero::learner
