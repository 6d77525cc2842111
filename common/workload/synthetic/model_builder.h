// What a model family (families.h) builds its forward program with: the
// graph, the seeded random source, the data types of the mode, and the
// per-unit diagnostics that bring the buffer count to its target.
//
// A family's program is a stack of "units" (layers, blocks, time steps); the
// generator picks the number of units whose program stays at or below the
// target buffer count, then fills the rest with diagnostics: reductions of a
// unit's output to a logged scalar (as training loops log activation norms),
// two buffers each, spread evenly over the units.
#ifndef MMAPZERO_COMMON_WORKLOAD_SYNTHETIC_MODEL_BUILDER_H_
#define MMAPZERO_COMMON_WORKLOAD_SYNTHETIC_MODEL_BUILDER_H_

#include <cstdint>
#include <string>

#include "common/workload/synthetic/op_graph.h"
#include "common/workload/synthetic/seeded_rng.h"

namespace mmapzero::synthetic {

inline constexpr int kBf16Bytes = 2;
inline constexpr int kF32Bytes = 4;
inline constexpr int kInt32Bytes = 4;

struct ModelBuilderOptions {
  bool training = true;
  uint64_t seed = 0;
  int units = 1;
  int diagnostics = 0;     // spread over the units by EndUnit
  int target_buffers = 0;  // a hint a family may size its fixed parts by
};

class ModelBuilder {
 public:
  ModelBuilder(const ModelBuilderOptions& options, OpGraph* graph);

  OpGraph& graph() { return *graph_; }
  SeededRng& rng() { return rng_; }
  bool training() const { return options_.training; }
  int target_buffers() const { return options_.target_buffers; }
  // Activations are bf16; weights are f32 master copies in training and
  // bf16 in inference (mixed-precision practice).
  int activation_bytes() const { return kBf16Bytes; }
  int parameter_bytes() const { return training() ? kF32Bytes : kBf16Bytes; }

  int AddInput(std::string name, int64_t elements, int element_bytes);
  int AddParameter(std::string name, int64_t elements);
  // Appends an op with one activation output of `elements` elements and
  // `element_bytes` bytes each (0: activation_bytes()); returns the output.
  int AddSimpleOp(GraphOp op, int64_t elements, int element_bytes = 0);

  // Ends a unit whose output is `tensor`: appends its share of diagnostics.
  void EndUnit(int tensor);

 private:
  ModelBuilderOptions options_;
  OpGraph* graph_;
  SeededRng rng_;
  int units_ended_ = 0;
};

}  // namespace mmapzero::synthetic

#endif  // MMAPZERO_COMMON_WORKLOAD_SYNTHETIC_MODEL_BUILDER_H_
