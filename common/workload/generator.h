// Seeded synthetic workloads shaped like ML programs, for training and
// testing solvers when no compiler dump is at hand. A family (mlp, cnn,
// transformer, lstm) gives the forward program; training adds the backward
// pass and in-place optimizer updates (activations kept from the forward are
// re-read by the backward, weights are read again and updated in place,
// which makes alias groups). Every instruction gets a roofline latency from
// its shape's FLOPs; buffers carry no static features (FillStaticFeatures in
// static_features.h adds them). The same options give the same workload.
//
// Sizing: the number of repeated units (layers, blocks, steps) is the
// largest whose program stays within `target_buffers`; small diagnostic
// reductions fill the rest, so the count lands within a buffer or two of
// the target (or at the smallest program of the family, for tiny targets).
// Then every size and FLOP count is scaled by one factor so that the peak of
// live tensor bytes is `memory_pressure` times the fast memory, or less when
// the largest tensor would otherwise not fit in the fast memory (weight-
// heavy inference programs); provenance["memory_pressure"] is the result.
// Scaling sizes and FLOPs together keeps each op compute- or memory-bound
// as its real shape is.
#ifndef MMAPZERO_COMMON_WORKLOAD_GENERATOR_H_
#define MMAPZERO_COMMON_WORKLOAD_GENERATOR_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/workload.pb.h"

namespace mmapzero {

enum class ModelFamily { kMlp, kCnn, kTransformer, kLstm };
enum class ProgramMode { kTraining, kInference };

// "mlp", "cnn", "transformer", "lstm"; errors list the known names.
absl::StatusOr<ModelFamily> ParseModelFamily(std::string_view name);
std::string ModelFamilyName(ModelFamily family);
std::vector<std::string> ModelFamilyNames();
// "training", "inference".
absl::StatusOr<ProgramMode> ParseProgramMode(std::string_view name);
std::string ProgramModeName(ProgramMode mode);

inline constexpr int kMaxTargetBuffers = 1'000'000;

struct GeneratorOptions {
  ModelFamily family = ModelFamily::kMlp;
  ProgramMode mode = ProgramMode::kTraining;
  int target_buffers = 1000;  // in [1, kMaxTargetBuffers]
  uint64_t seed = 0;
  std::string hardware_profile = "tpu-v4i";  // hardware_profiles.h
  int64_t memory_size = 0;  // fast-memory bytes; 0: the profile's
  int64_t alignment = 1;    // Workload.alignment
  // Peak live tensor bytes / memory size (at most; see above); 0: drawn
  // from [3, 8) by the seed.
  double memory_pressure = 0;
};

// InvalidArgument for options out of range, NotFound for an unknown profile.
absl::StatusOr<Workload> GenerateWorkload(const GeneratorOptions& options);

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_WORKLOAD_GENERATOR_H_
