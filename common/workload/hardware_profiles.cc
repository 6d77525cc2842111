#include "common/workload/hardware_profiles.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace mmapzero {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

HardwareProfile MakeProfile(const char* name, double peak_tflops,
                            double slow_gbps, double fast_gbps,
                            double copy_gbps, int64_t fast_memory_bytes) {
  HardwareProfile profile;
  profile.set_name(name);
  profile.set_peak_tflops(peak_tflops);
  profile.set_slow_bandwidth_gbps(slow_gbps);
  profile.set_fast_bandwidth_gbps(fast_gbps);
  profile.set_copy_bandwidth_gbps(copy_gbps);
  profile.set_fast_memory_bytes(fast_memory_bytes);
  return profile;
}

const std::vector<HardwareProfile>& AllProfiles() {
  static const auto* profiles = new std::vector<HardwareProfile>{
      // TPUv4i (Jouppi et al., "Ten Lessons From Three Generations Shaped
      // Google's TPUv4i", ISCA 2021): 138 TFLOP/s bf16, 8 GiB HBM2 at
      // 614 GB/s, 128 MiB CMEM. CMEM bandwidth is not given as one figure;
      // we assume 4x HBM (on-chip SRAM, the paper's reason for CMEM). The
      // DMA between HBM and CMEM is limited by HBM, so copy = HBM bandwidth.
      MakeProfile("tpu-v4i", 138.0, 614.0, 4 * 614.0, 614.0, 128 * kMiB),
      // NVIDIA A100 40GB (A100 Tensor Core GPU architecture whitepaper,
      // 2020): 312 TFLOP/s dense bf16, HBM2 1555 GB/s, 40 MiB L2. Fast memory
      // is the L2 / shared-memory carve-out; its bandwidth is assumed to be
      // 5000 GB/s (about 3.2x HBM, in line with published L2
      // microbenchmarks). Copies are HBM-bound.
      MakeProfile("gpu-a100", 312.0, 1555.0, 5000.0, 1555.0, 40 * kMiB),
      // NVIDIA H100 SXM (Hopper whitepaper, 2022): 989 TFLOP/s dense bf16,
      // HBM3 3350 GB/s, 50 MiB L2; fast bandwidth assumed 3x HBM.
      MakeProfile("gpu-h100", 989.0, 3350.0, 3 * 3350.0, 3350.0, 50 * kMiB),
  };
  return *profiles;
}

}  // namespace

absl::StatusOr<HardwareProfile> HardwareProfileByName(std::string_view name) {
  for (const HardwareProfile& profile : AllProfiles()) {
    if (profile.name() == name) return profile;
  }
  return absl::NotFoundError(
      absl::StrCat("unknown hardware profile '", std::string(name),
                   "'; known: ", absl::StrJoin(HardwareProfileNames(), ", ")));
}

std::vector<std::string> HardwareProfileNames() {
  std::vector<std::string> names;
  for (const HardwareProfile& profile : AllProfiles()) {
    names.push_back(profile.name());
  }
  return names;
}

absl::StatusOr<HardwareProfile> ResolveHardwareProfile(
    const std::string& name_or_path) {
  return HardwareProfileByName(name_or_path);
}

}  // namespace mmapzero
