#include "common/workload/hardware_profiles.h"

#include <cmath>
#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "common/base/status_macros.h"
#include "common/workload/proto_io.h"

namespace mmapzero {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr char kFastSuffix[] = "@fast=";

struct ProfileFigures {
  const char* name;
  double peak_tflops;
  double slow_gbps;
  double fast_gbps;  // assumed: not published (see the header)
  int64_t fast_memory_bytes;
  int64_t alignment;
};

HardwareProfile MakeProfile(const ProfileFigures& figures) {
  HardwareProfile profile;
  profile.set_name(figures.name);
  profile.set_peak_tflops(figures.peak_tflops);
  profile.set_slow_bandwidth_gbps(figures.slow_gbps);
  profile.set_fast_bandwidth_gbps(figures.fast_gbps);
  // Copies move data between HBM and the fast memory, so HBM bounds them.
  profile.set_copy_bandwidth_gbps(figures.slow_gbps);
  profile.set_fast_memory_bytes(figures.fast_memory_bytes);
  profile.set_alignment(figures.alignment);
  return profile;
}

const std::vector<HardwareProfile>& AllProfiles() {
  static const auto* profiles = new std::vector<HardwareProfile>{
      // TPUv4i: 137 TFLOP/s bf16, HBM2 614 GB/s, 128 MiB CMEM (JAX Pallas
      // TPU hardware table; Jouppi et al., ISCA 2021). CMEM bandwidth is not
      // published: 4x HBM assumed. 512-byte alignment: one (8, 128) tile of
      // 4-byte words is 4 KiB; 512 bytes is one sublane row of it, the
      // granule the generator rounds sizes to.
      MakeProfile({"tpu-v4i", 137.0, 614.0, 4 * 614.0, 128 * kMiB, 512}),
      // NVIDIA A100 40GB (A100 architecture whitepaper, 2020): 312 TFLOP/s
      // dense bf16, HBM2 1555 GB/s, the whole 40 MiB L2 (the persisting
      // set-aside would be 30 MiB); L2 bandwidth assumed 5000 GB/s (about
      // 3.2x HBM). 128 bytes: one L2 cache line.
      MakeProfile({"gpu-a100", 312.0, 1555.0, 5000.0, 40 * kMiB, 128}),
      // NVIDIA H100 SXM (datasheet; Hopper whitepaper, 2022): 989 TFLOP/s
      // dense bf16, HBM3 3350 GB/s; fast memory = the L2 set-aside for
      // persisting accesses, 75% of the 50 MiB L2 = 37.5 MiB (CUDA's
      // persistingL2CacheMaxSize). L2 bandwidth assumed 3x HBM.
      MakeProfile({"gpu-h100", 989.0, 3350.0, 3 * 3350.0, 75 * kMiB / 2, 128}),
  };
  return *profiles;
}

absl::Status FieldError(std::string_view source, const char* field,
                        const char* requirement, double value) {
  return absl::InvalidArgumentError(absl::StrCat(
      std::string(source), ": hardware profile field ", field, " must be ",
      requirement, ", got ", absl::StrFormat("%g", value)));
}

// Splits "base@fast=8x" into "base" and 8; no suffix gives a multiple of 0.
absl::Status SplitFastSuffix(const std::string& spec, std::string* base,
                             double* multiple) {
  *multiple = 0;
  const size_t at = spec.rfind(kFastSuffix);
  if (at == std::string::npos) {
    *base = spec;
    return absl::OkStatus();
  }
  *base = spec.substr(0, at);
  absl::string_view text =
      absl::string_view(spec).substr(at + sizeof(kFastSuffix) - 1);
  absl::ConsumeSuffix(&text, "x");
  if (!absl::SimpleAtod(text, multiple) || !std::isfinite(*multiple) ||
      *multiple <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "hardware '", spec, "': the fast bandwidth multiple after '",
        kFastSuffix, "' must be a number > 0, e.g. '@fast=4x'"));
  }
  return absl::OkStatus();
}

bool LooksLikePath(const std::string& text) {
  std::error_code error;
  return text.find('/') != std::string::npos || absl::EndsWith(text, ".json") ||
         absl::EndsWith(text, ".pb") || std::filesystem::exists(text, error);
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

absl::Status CheckHardwareProfile(const HardwareProfile& profile,
                                  std::string_view source) {
  const struct {
    const char* field;
    double value;
  } positives[] = {
      {"peak_tflops", profile.peak_tflops()},
      {"slow_bandwidth_gbps", profile.slow_bandwidth_gbps()},
      {"fast_bandwidth_gbps", profile.fast_bandwidth_gbps()},
      {"copy_bandwidth_gbps", profile.copy_bandwidth_gbps()},
      {"fast_memory_bytes", static_cast<double>(profile.fast_memory_bytes())},
  };
  for (const auto& [field, value] : positives) {
    if (!std::isfinite(value) || value <= 0) {
      return FieldError(source, field, "> 0 (and finite)", value);
    }
  }
  if (profile.alignment() < 0) {
    return FieldError(source, "alignment", ">= 0 (0 or 1 = none)",
                      static_cast<double>(profile.alignment()));
  }
  return absl::OkStatus();
}

absl::StatusOr<HardwareProfile> ReadHardwareProfileFile(
    const std::string& path) {
  HardwareProfile profile;
  RETURN_IF_ERROR(ReadProtoFile(path, &profile));
  RETURN_IF_ERROR(CheckHardwareProfile(profile, path));
  if (profile.name().empty()) {
    profile.set_name(std::filesystem::path(path).stem().string());
  }
  return profile;
}

HardwareProfile WithFastBandwidthMultiplier(HardwareProfile profile,
                                            double multiple_of_hbm) {
  profile.set_fast_bandwidth_gbps(multiple_of_hbm *
                                  profile.slow_bandwidth_gbps());
  profile.set_name(absl::StrCat(profile.name(), kFastSuffix,
                                absl::StrFormat("%g", multiple_of_hbm), "x"));
  return profile;
}

absl::StatusOr<HardwareProfile> ResolveHardwareProfile(
    const std::string& name_or_path) {
  std::string base;
  double multiple = 0;
  RETURN_IF_ERROR(SplitFastSuffix(name_or_path, &base, &multiple));
  absl::StatusOr<HardwareProfile> profile = HardwareProfileByName(base);
  if (!profile.ok() && LooksLikePath(base)) {
    profile = ReadHardwareProfileFile(base);
  } else if (!profile.ok()) {
    return absl::NotFoundError(absl::StrCat(
        "hardware '", name_or_path, "' is neither a known profile (",
        absl::StrJoin(HardwareProfileNames(), ", "),
        ") nor a profile file (a path, e.g. my-accelerator.json)"));
  }
  if (!profile.ok()) return profile.status();
  if (multiple > 0) return WithFastBandwidthMultiplier(*profile, multiple);
  return profile;
}

}  // namespace mmapzero
