#include "common/workload/generator.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/base/status_macros.h"
#include "common/workload/hardware_profiles.h"
#include "common/workload/synthetic/autodiff.h"
#include "common/workload/synthetic/families.h"
#include "common/workload/synthetic/lower.h"
#include "common/workload/synthetic/model_builder.h"
#include "common/workload/synthetic/op_graph.h"
#include "common/workload/synthetic/seeded_rng.h"
#include "common/workload/workload_check.h"

namespace mmapzero {
namespace {

using synthetic::OpGraph;

// Streams drawn from the seed besides the architecture's (model_builder.cc).
constexpr uint64_t kOptimizerStream = 2;
constexpr uint64_t kPressureStream = 3;
constexpr double kMinDrawnPressure = 3.0;
constexpr double kMaxDrawnPressure = 8.0;

struct Family {
  ModelFamily family;
  const char* name;
  int (*build)(synthetic::ModelBuilder&, int units);
};

constexpr Family kFamilies[] = {
    {ModelFamily::kMlp, "mlp", synthetic::BuildMlp},
    {ModelFamily::kCnn, "cnn", synthetic::BuildCnn},
    {ModelFamily::kTransformer, "transformer", synthetic::BuildTransformer},
    {ModelFamily::kLstm, "lstm", synthetic::BuildLstm},
};

const Family& FamilyOf(ModelFamily family) {
  for (const Family& entry : kFamilies) {
    if (entry.family == family) return entry;
  }
  return kFamilies[0];
}

synthetic::OptimizerKind OptimizerOf(uint64_t seed) {
  synthetic::SeededRng rng(seed, kOptimizerStream);
  return rng.Bernoulli(0.5) ? synthetic::OptimizerKind::kAdam
                            : synthetic::OptimizerKind::kMomentum;
}

OpGraph BuildProgram(const GeneratorOptions& options, int units,
                     int diagnostics) {
  OpGraph graph;
  const bool training = options.mode == ProgramMode::kTraining;
  synthetic::ModelBuilder builder(
      {training, options.seed, units, diagnostics, options.target_buffers},
      &graph);
  const int root = FamilyOf(options.family).build(builder, units);
  if (training) {
    synthetic::AppendBackwardAndOptimizer(root, OptimizerOf(options.seed),
                                          &graph);
  }
  return graph;
}

struct Plan {
  int units = 1;
  int diagnostics = 0;
};

// The most units whose program has at most target_buffers buffers (at least
// one), found by a guess from the first two sizes, a bracket around it and
// bisection; the count grows with the units (families.h).
Plan ChoosePlan(const GeneratorOptions& options) {
  const int64_t target = options.target_buffers;
  auto count = [&options](int units) {
    return BuildProgram(options, units, 0).num_buffers();
  };
  const int64_t one = count(1);
  if (one >= target) return {1, 0};
  const int64_t slope = std::max<int64_t>(1, count(2) - one);
  int lo = 1;  // count(lo) <= target
  int hi = static_cast<int>(
      std::min<int64_t>(kMaxTargetBuffers, 2 + (target - one) / slope));
  int step = std::max(1, hi / 32);
  if (count(hi) <= target) {
    while (true) {
      lo = hi;
      hi = static_cast<int>(std::min<int64_t>(kMaxTargetBuffers, hi + step));
      if (hi == lo || count(hi) > target) break;
      step *= 2;
    }
    if (hi == lo) return {lo, static_cast<int>((target - count(lo)) / 2)};
  } else {
    for (int probe = hi - step; probe > 1; probe -= step, step *= 2) {
      if (count(probe) <= target) {
        lo = probe;
        break;
      }
      hi = probe;
    }
  }
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (count(mid) <= target ? lo : hi) = mid;
  }
  return {lo, static_cast<int>((target - count(lo)) / 2)};
}

// Sizes round to a power of two that keeps the smallest tensors well below
// the memory: 512 bytes (a tile) for megabytes of fast memory, less for
// tiny test memories.
int64_t SizeGranule(int64_t memory_size) {
  int64_t granule = 4;
  while (granule < 512 && granule * 2 * 65536 <= memory_size) granule *= 2;
  return granule;
}

absl::Status CheckOptions(const GeneratorOptions& options) {
  if (options.target_buffers < 1 ||
      options.target_buffers > kMaxTargetBuffers) {
    return absl::InvalidArgumentError(
        absl::StrCat("target_buffers: must be in [1, ", kMaxTargetBuffers,
                     "], got ", options.target_buffers));
  }
  if (options.memory_size < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("memory_size: must be >= 0 (0: the profile's), got ",
                     options.memory_size));
  }
  if (options.alignment < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("alignment: must be >= 0, got ", options.alignment));
  }
  if (!(options.memory_pressure >= 0) ||
      !std::isfinite(options.memory_pressure)) {
    return absl::InvalidArgumentError(
        absl::StrCat("memory_pressure: must be >= 0 (0: drawn), got ",
                     options.memory_pressure));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ModelFamily> ParseModelFamily(std::string_view name) {
  for (const Family& entry : kFamilies) {
    if (name == entry.name) return entry.family;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown model family '", std::string(name),
                   "'; known: ", absl::StrJoin(ModelFamilyNames(), ", ")));
}

std::string ModelFamilyName(ModelFamily family) {
  return FamilyOf(family).name;
}

std::vector<std::string> ModelFamilyNames() {
  std::vector<std::string> names;
  for (const Family& entry : kFamilies) names.push_back(entry.name);
  return names;
}

absl::StatusOr<ProgramMode> ParseProgramMode(std::string_view name) {
  if (name == "training") return ProgramMode::kTraining;
  if (name == "inference") return ProgramMode::kInference;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown mode '", std::string(name), "'; known: training, inference"));
}

std::string ProgramModeName(ProgramMode mode) {
  return mode == ProgramMode::kTraining ? "training" : "inference";
}

absl::StatusOr<Workload> GenerateWorkload(const GeneratorOptions& options) {
  RETURN_IF_ERROR(CheckOptions(options));
  ASSIGN_OR_RETURN(HardwareProfile hardware,
                   ResolveHardwareProfile(options.hardware_profile));
  const int64_t memory_size = options.memory_size > 0
                                  ? options.memory_size
                                  : hardware.fast_memory_bytes();
  const Plan plan = ChoosePlan(options);
  const OpGraph graph = BuildProgram(options, plan.units, plan.diagnostics);
  const double drawn_pressure =
      options.memory_pressure > 0
          ? options.memory_pressure
          : synthetic::SeededRng(options.seed, kPressureStream)
                .UniformReal(kMinDrawnPressure, kMaxDrawnPressure);
  // The scale that gives the pressure, lowered if needed so that the
  // largest tensor still fits in the fast memory.
  const int64_t granule = SizeGranule(memory_size);
  const double peak = static_cast<double>(synthetic::PeakLiveBytes(graph));
  const double largest =
      static_cast<double>(synthetic::LargestTensorBytes(graph));
  synthetic::LoweringOptions lowering;
  lowering.scale = std::min(
      drawn_pressure * static_cast<double>(memory_size) / peak,
      static_cast<double>(std::max(granule, memory_size - granule)) / largest);
  lowering.size_granule = granule;
  const double pressure =
      lowering.scale * peak / static_cast<double>(memory_size);
  Workload workload;
  const std::string family = ModelFamilyName(options.family);
  const std::string mode = ProgramModeName(options.mode);
  workload.set_name(absl::StrCat(family, "-", mode, "-", options.target_buffers,
                                 "-seed", options.seed));
  *workload.mutable_hardware() = hardware;
  workload.set_memory_size(memory_size);
  workload.set_alignment(options.alignment);
  synthetic::LowerToWorkload(graph, lowering, &workload);

  auto& provenance = *workload.mutable_provenance();
  provenance["generator"] = "mmapzero synthetic v1";
  provenance["family"] = family;
  provenance["mode"] = mode;
  provenance["seed"] = absl::StrCat(options.seed);
  provenance["hardware_profile"] = hardware.name();
  provenance["target_buffers"] = absl::StrCat(options.target_buffers);
  provenance["units"] = absl::StrCat(plan.units);
  provenance["diagnostics"] = absl::StrCat(plan.diagnostics);
  if (options.mode == ProgramMode::kTraining) {
    provenance["optimizer"] =
        OptimizerOf(options.seed) == synthetic::OptimizerKind::kAdam
            ? "adam"
            : "momentum";
  }
  provenance["memory_pressure"] = absl::StrFormat("%.3f", pressure);

  if (absl::Status status = CheckWorkload(workload); !status.ok()) {
    return absl::InternalError(absl::StrCat(
        "generated workload fails CheckWorkload: ", status.message()));
  }
  return workload;
}

}  // namespace mmapzero
