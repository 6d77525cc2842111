// The training device a learner's --device names: auto (CUDA when LibTorch
// has it, else the CPU), cpu or cuda. Names rather than torch::Device, so
// that the service's config and worker do not include LibTorch.
#ifndef MMAPZERO_LEARNER_TRAINING_DEVICE_H_
#define MMAPZERO_LEARNER_TRAINING_DEVICE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace mmapzero::learner {

// InvalidArgument naming --device unless `name` is auto, cpu or cuda.
absl::Status CheckDeviceName(const std::string& name);

// The device `name` means on this machine, "cpu" or "cuda": cuda refuses
// (FailedPrecondition) without a CUDA device (a CPU-only LibTorch build or
// no GPU) rather than train on one CPU thread unnoticed; auto falls back
// to the CPU.
absl::StatusOr<std::string> ResolveDeviceName(const std::string& name);

}  // namespace mmapzero::learner

#endif  // MMAPZERO_LEARNER_TRAINING_DEVICE_H_
