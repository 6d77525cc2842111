#include "common/workload/synthetic/autodiff.h"

#include <string>
#include <vector>

#include "common/workload/synthetic/layers.h"
#include "common/workload/synthetic/model_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::synthetic {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> OpNames(const OpGraph& graph) {
  std::vector<std::string> names;
  for (int i = 0; i < graph.num_ops(); ++i) names.push_back(graph.op(i).name);
  return names;
}

std::vector<std::string> TensorNames(const OpGraph& graph,
                                     const std::vector<int>& ids) {
  std::vector<std::string> names;
  for (int id : ids) names.push_back(graph.tensor(id).spec.name);
  return names;
}

// features[4, 8] . w[8, 2] -> logits -> loss.
TEST(AutodiffTest, DenseClassifierGetsBackwardThenInPlaceUpdate) {
  OpGraph graph;
  ModelBuilder mb({.training = true, .units = 1}, &graph);
  const int x = mb.AddInput("x", 4 * 8, kBf16Bytes);
  const int labels = mb.AddInput("labels", 4, kInt32Bytes);
  const int logits = Dense(mb, "dense", x, 4, 8, 2);
  const int loss = Head(mb, logits, labels, 4, 2);
  AppendBackwardAndOptimizer(loss, OptimizerKind::kMomentum, &graph);

  // The input needs no gradient, so there is no grad_input dot.
  EXPECT_THAT(OpNames(graph),
              ElementsAre("dense", "loss", "loss.grad", "dense.grad_weight",
                          "dense.w.update"));
  const GraphOp& grad_weight = graph.op(3);
  EXPECT_EQ(grad_weight.flops, graph.op(0).flops);
  EXPECT_THAT(TensorNames(graph, grad_weight.operands),
              ElementsAre("dense.grad", "x"));
  const GraphOp& update = graph.op(4);
  EXPECT_THAT(TensorNames(graph, update.operands),
              ElementsAre("dense.w", "dense.w.grad", "dense.w.momentum"));
  EXPECT_THAT(TensorNames(graph, update.outputs),
              ElementsAre("dense.w.new", "dense.w.momentum.new"));
  EXPECT_THAT(update.in_place, ElementsAre(std::pair(0, 0), std::pair(1, 2)));
  for (int y : update.outputs) EXPECT_TRUE(graph.tensor(y).program_output);
  // Gradients of f32 weights are f32.
  EXPECT_EQ(graph.tensor(update.operands[1]).bytes(), 8 * 2 * kF32Bytes);
}

// y = relu(x . w); z = y + y': the gradient of y arrives twice (from the
// add's two paths through a pass-through) and is summed before its dot.
TEST(AutodiffTest, GradientsOfReusedTensorsAreSummed) {
  OpGraph graph;
  ModelBuilder mb({.training = true, .units = 1}, &graph);
  const int x = mb.AddInput("x", 16, kBf16Bytes);
  const int labels = mb.AddInput("labels", 4, kInt32Bytes);
  const int h = Dense(mb, "dense", x, 4, 4, 4);
  const int a = Activation(mb, "relu", h, 1.0);
  const int b = Activation(mb, "gelu", h, 8.0);
  const int sum = Add(mb, "sum", a, b);
  const int loss = Head(mb, sum, labels, 4, 4);
  AppendBackwardAndOptimizer(loss, OptimizerKind::kAdam, &graph);

  EXPECT_THAT(OpNames(graph),
              ElementsAre("dense", "relu", "gelu", "sum", "loss", "loss.grad",
                          "gelu.grad", "relu.grad", "dense.grad_sum",
                          "dense.grad_weight", "dense.w.update"));
  // Adam: two states, each updated in place.
  EXPECT_EQ(graph.op(10).outputs.size(), 3u);
  EXPECT_EQ(graph.op(10).in_place.size(), 3u);
}

// The weights of an LSTM are read at every step; their gradient is
// accumulated in the dot that produces each step's part.
TEST(AutodiffTest, SharedWeightGradientIsAccumulatedInTheDot) {
  OpGraph graph;
  ModelBuilder mb({.training = true, .units = 1}, &graph);
  const int x = mb.AddInput("x", 16, kBf16Bytes);
  const int labels = mb.AddInput("labels", 4, kInt32Bytes);
  const int w = mb.AddParameter("w", 16);
  const int h1 = MatMul(mb, "step0", x, w, 4, 4, 4);
  const int h2 = MatMul(mb, "step1", h1, w, 4, 4, 4);
  const int loss = Head(mb, h2, labels, 4, 4);
  AppendBackwardAndOptimizer(loss, OptimizerKind::kMomentum, &graph);

  EXPECT_THAT(
      OpNames(graph),
      ElementsAre("step0", "step1", "loss", "loss.grad", "step1.grad_input",
                  "step1.grad_weight", "step0.grad_weight", "w.update"));
  const GraphOp& accumulate = graph.op(6);
  EXPECT_THAT(TensorNames(graph, accumulate.operands),
              ElementsAre("step0.grad", "x", "w.grad"));
  EXPECT_THAT(accumulate.in_place, ElementsAre(std::pair(0, 2)));
}

}  // namespace
}  // namespace mmapzero::synthetic
