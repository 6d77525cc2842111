// The machines behind the roofline latency model and the latency simulator
// (workload.proto HardwareProfile): named built-ins ("tpu-v4i", "gpu-a100",
// "gpu-h100") and user-defined profiles read from a file. Peak compute, HBM
// bandwidth and fast-memory capacity are published figures; fast-memory
// bandwidth is not published for any of these parts, so it is an assumption
// (a multiple of HBM) that sweeps can vary. docs/hardware-profiles.md cites
// the sources and shows how to write a profile file.
#ifndef MMAPZERO_COMMON_WORKLOAD_HARDWARE_PROFILES_H_
#define MMAPZERO_COMMON_WORKLOAD_HARDWARE_PROFILES_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/workload.pb.h"

namespace mmapzero {

// The profile called `name`, or NotFound listing the known names.
absl::StatusOr<HardwareProfile> HardwareProfileByName(std::string_view name);

// Every known profile name, in a fixed order (the default first).
std::vector<std::string> HardwareProfileNames();

// InvalidArgument unless every bandwidth, the peak and the fast-memory size
// are > 0 (and finite) and the alignment is >= 0. Messages start with
// `source` (a file name or profile name) and name the field and its value.
absl::Status CheckHardwareProfile(const HardwareProfile& profile,
                                  std::string_view source);

// Reads a HardwareProfile file (JSON or binary, proto_io.h) and checks it.
// A profile without a name is named after the file.
absl::StatusOr<HardwareProfile> ReadHardwareProfileFile(
    const std::string& path);

// `profile` with fast_bandwidth_gbps = multiple_of_hbm * slow_bandwidth_gbps
// and "@fast=<multiple>x" appended to its name: the knob for sweeping the
// unpublished fast-memory bandwidth. The multiple must be > 0.
HardwareProfile WithFastBandwidthMultiplier(HardwareProfile profile,
                                            double multiple_of_hbm);

// What a `--hardware` / `--profile` flag names: a known profile name or the
// path of a HardwareProfile file, optionally followed by "@fast=<K>x" to set
// the fast bandwidth to K times the slow (HBM) bandwidth, e.g.
// "tpu-v4i@fast=8x" or "my-accelerator.json@fast=2x". Errors name the flag
// value and, for files, the file, field and value.
absl::StatusOr<HardwareProfile> ResolveHardwareProfile(
    const std::string& name_or_path);

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_WORKLOAD_HARDWARE_PROFILES_H_
