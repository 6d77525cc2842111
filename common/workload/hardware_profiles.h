// Named machines for the roofline latency model and the latency simulator
// (workload.proto HardwareProfile): "tpu-v4i", "gpu-a100", "gpu-h100".
// Peak compute, HBM bandwidth and fast-memory capacity are the vendors'
// published figures; fast-memory bandwidth is not published as one number
// for either part, so it is an assumption, stated next to it in the .cc.
#ifndef MMAPZERO_COMMON_WORKLOAD_HARDWARE_PROFILES_H_
#define MMAPZERO_COMMON_WORKLOAD_HARDWARE_PROFILES_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/workload.pb.h"

namespace mmapzero {

// The profile called `name`, or NotFound listing the known names.
absl::StatusOr<HardwareProfile> HardwareProfileByName(std::string_view name);

// Every known profile name, in a fixed order (the default first).
std::vector<std::string> HardwareProfileNames();

// What a `--hardware` flag names: a known profile name, or the path of a
// HardwareProfile file (JSON or binary). Errors name the flag value.
absl::StatusOr<HardwareProfile> ResolveHardwareProfile(
    const std::string& name_or_path);

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_WORKLOAD_HARDWARE_PROFILES_H_
