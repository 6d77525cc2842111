#include "common/workload/synthetic/model_builder.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace mmapzero::synthetic {
namespace {

// Independent of the other streams drawn from the seed (generator.cc).
constexpr uint64_t kArchitectureStream = 1;

// Diagnostics of unit `unit` when `total` are spread over `units` units.
int DiagnosticsOfUnit(int unit, int units, int total) {
  const int64_t before = int64_t{total} * unit / units;
  const int64_t through = int64_t{total} * (unit + 1) / units;
  return static_cast<int>(through - before);
}

}  // namespace

ModelBuilder::ModelBuilder(const ModelBuilderOptions& options, OpGraph* graph)
    : options_(options),
      graph_(graph),
      rng_(options.seed, kArchitectureStream) {}

int ModelBuilder::AddInput(std::string name, int64_t elements,
                           int element_bytes) {
  return graph_->AddTensor(
      {std::move(name), elements, element_bytes, TensorRole::kInput});
}

int ModelBuilder::AddParameter(std::string name, int64_t elements) {
  return graph_->AddTensor(
      {std::move(name), elements, parameter_bytes(), TensorRole::kParameter});
}

int ModelBuilder::AddSimpleOp(GraphOp op, int64_t elements, int element_bytes) {
  std::string name = op.name;
  const int index =
      graph_->AddOp(std::move(op),
                    {{std::move(name), elements,
                      element_bytes > 0 ? element_bytes : activation_bytes()}});
  return graph_->op(index).outputs[0];
}

void ModelBuilder::EndUnit(int tensor) {
  const int unit = units_ended_++;
  if (unit >= options_.units) return;
  const int count =
      DiagnosticsOfUnit(unit, options_.units, options_.diagnostics);
  const GraphTensor& source = graph_->tensor(tensor);
  const double flops = static_cast<double>(source.spec.elements);
  const std::string source_name = source.spec.name;
  for (int i = 0; i < count; ++i) {
    GraphOp op;
    static constexpr const char* kStatistics[] = {"l2norm", "mean", "max",
                                                  "min"};
    op.name = absl::StrCat(source_name, ".", kStatistics[i % 4],
                           i < 4 ? "" : absl::StrCat(i / 4));
    op.opcode = "reduce";
    op.flops = flops;
    op.operands = {tensor};
    const int scalar = AddSimpleOp(std::move(op), 1, kF32Bytes);
    graph_->MarkProgramOutput(scalar);
  }
}

}  // namespace mmapzero::synthetic
