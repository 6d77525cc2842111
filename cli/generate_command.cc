// mmapctl generate: writes a seeded synthetic workload (generator.h) and
// prints a one-line summary of what it wrote.
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/workload_summary.h"
#include "common/base/status_macros.h"
#include "common/workload/generator.h"
#include "common/workload/hardware_profiles.h"
#include "common/workload/proto_io.h"
#include "common/workload/static_features.h"
#include "common/workload/workload_stats.h"

namespace mmapzero::cli {
namespace {

constexpr char kUsage[] =
    "generate --family mlp|cnn|transformer|lstm --buffers N --seed S "
    "--out WORKLOAD [--mode training|inference] "
    "[--profile tpu-v4i|gpu-a100|gpu-h100] [--memory-size BYTES] "
    "[--alignment A] [--pressure P] [--static-features]";

absl::StatusOr<GeneratorOptions> ParseOptions(const CommandLine& line) {
  GeneratorOptions options;
  ASSIGN_OR_RETURN(const std::string family, line.GetRequired("family", kUsage));
  auto parsed_family = ParseModelFamily(family);
  if (!parsed_family.ok()) return FlagError("family", parsed_family.status());
  options.family = *parsed_family;
  auto mode = ParseProgramMode(line.GetString("mode", "training"));
  if (!mode.ok()) return FlagError("mode", mode.status());
  options.mode = *mode;

  RETURN_IF_ERROR(line.GetRequired("buffers", kUsage).status());
  ASSIGN_OR_RETURN(const int64_t buffers, line.GetInt("buffers", 0));
  if (buffers < 1 || buffers > kMaxTargetBuffers) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--buffers: must be in [1, ", kMaxTargetBuffers, "], got ", buffers));
  }
  options.target_buffers = static_cast<int>(buffers);
  RETURN_IF_ERROR(line.GetRequired("seed", kUsage).status());
  ASSIGN_OR_RETURN(const int64_t seed, line.GetInt("seed", 0));
  if (seed < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--seed: must be >= 0, got ", seed));
  }
  options.seed = static_cast<uint64_t>(seed);

  options.hardware_profile = line.GetString("profile", "tpu-v4i");
  if (auto profile = ResolveHardwareProfile(options.hardware_profile);
      !profile.ok()) {
    return FlagError("profile", profile.status());
  }
  ASSIGN_OR_RETURN(options.memory_size, line.GetInt("memory-size", 0));
  if (options.memory_size < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--memory-size: must be >= 0 (0: the profile's), got ",
                     options.memory_size));
  }
  ASSIGN_OR_RETURN(options.alignment, line.GetInt("alignment", 1));
  if (options.alignment < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--alignment: must be >= 1, got ", options.alignment));
  }
  ASSIGN_OR_RETURN(options.memory_pressure, line.GetDouble("pressure", 0));
  if (!(options.memory_pressure >= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--pressure: must be >= 0 (0: drawn from the seed), got ",
                     options.memory_pressure));
  }
  return options;
}

}  // namespace

absl::Status RunGenerate(const Args& args) {
  ASSIGN_OR_RETURN(
      const CommandLine line,
      CommandLine::Parse(args,
                         {"family", "buffers", "seed", "out", "mode", "profile",
                          "memory-size", "alignment", "pressure"},
                         {"static-features"}));
  RETURN_IF_ERROR(line.ExpectPositional(0, kUsage));
  ASSIGN_OR_RETURN(const GeneratorOptions options, ParseOptions(line));
  ASSIGN_OR_RETURN(const std::string out, line.GetRequired("out", kUsage));

  ASSIGN_OR_RETURN(Workload workload, GenerateWorkload(options));
  if (line.Has("static-features")) {
    RETURN_IF_ERROR(FillStaticFeatures(&workload));
    DropLatencyModels(&workload);
  }
  RETURN_IF_ERROR(WriteProtoFile(out, workload));

  std::cout << WorkloadSummary(out, workload) << "\n";
  return absl::OkStatus();
}

}  // namespace mmapzero::cli
