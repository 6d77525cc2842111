#include "common/workload/synthetic/lower.h"

#include "common/workload/synthetic/autodiff.h"
#include "common/workload/synthetic/layers.h"
#include "common/workload/synthetic/model_builder.h"
#include "gtest/gtest.h"

namespace mmapzero::synthetic {
namespace {

// x -> dense -> gelu -> loss, training or inference.
OpGraph SmallProgram(bool training) {
  OpGraph graph;
  ModelBuilder mb({.training = training, .units = 1}, &graph);
  const int x = mb.AddInput("x", 1024, kBf16Bytes);
  const int labels = mb.AddInput("labels", 4, kInt32Bytes);
  const int h = Dense(mb, "dense", x, 4, 256, 256);
  const int a = Activation(mb, "gelu", h, 8.0);
  const int root = Head(mb, a, labels, 4, 256);
  if (training) {
    AppendBackwardAndOptimizer(root, OptimizerKind::kMomentum, &graph);
  }
  return graph;
}

TEST(LowerTest, BuffersFollowOpsOperandsFirst) {
  const OpGraph graph = SmallProgram(false);
  Workload workload;
  LowerToWorkload(graph, {}, &workload);
  ASSERT_EQ(workload.instructions_size(), 2);  // dense, gelu
  ASSERT_EQ(workload.buffers_size(), 5);
  const bool outputs[] = {false, false, true, false, true};
  const int times[] = {0, 0, 0, 1, 1};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(workload.buffers(i).id(), i);
    EXPECT_EQ(workload.buffers(i).is_output(), outputs[i]) << i;
    EXPECT_EQ(workload.buffers(i).target_time(), times[i]) << i;
  }
  EXPECT_DOUBLE_EQ(workload.instructions(0).roofline().flops(),
                   2.0 * 4 * 256 * 256);
  // x (bf16) and w (bf16 in inference) exist from the start; the logits are
  // the program's output and live to the end.
  EXPECT_EQ(workload.buffers(0).size(), 2048);
  EXPECT_EQ(workload.buffers(1).size(), 256 * 256 * 2);
  EXPECT_EQ(workload.buffers(1).live_range().start(), 0);
  EXPECT_EQ(workload.buffers(2).live_range().start(), 0);
  EXPECT_EQ(workload.buffers(2).live_range().end(), 1);
}

// gelu may overwrite its input in place when nothing reads the input later:
// in inference it does (an alias group), in training the backward reads it.
TEST(LowerTest, InPlaceOnlyAtTheOperandsLastUse) {
  Workload inference;
  LowerToWorkload(SmallProgram(false), {}, &inference);
  ASSERT_TRUE(inference.buffers(3).has_alias_id());
  EXPECT_EQ(inference.buffers(3).alias_id(), inference.buffers(4).alias_id());

  const OpGraph graph = SmallProgram(true);
  Workload training;
  LowerToWorkload(graph, {}, &training);
  EXPECT_FALSE(training.buffers(3).has_alias_id());
  EXPECT_FALSE(training.buffers(4).has_alias_id());
}

TEST(LowerTest, ScaleMultipliesSizesAndFlopsAndRoundsToGranule) {
  const OpGraph graph = SmallProgram(false);
  Workload workload;
  LowerToWorkload(graph, {.scale = 0.1, .size_granule = 512}, &workload);
  EXPECT_EQ(workload.buffers(0).size(), 512);    // 204.8 -> at least one
  EXPECT_EQ(workload.buffers(1).size(), 13312);  // 13107.2 -> 26 * 512
  EXPECT_DOUBLE_EQ(workload.instructions(0).roofline().flops(),
                   52429);  // 52428.8, rounded
}

TEST(LowerTest, PeakLiveBytesCountsEachLiveTensorOnce) {
  const OpGraph graph = SmallProgram(false);
  // Step 0: x 2048 + w 131072 + h 2048; step 1: h + a 2048 (x, w dead).
  EXPECT_EQ(PeakLiveBytes(graph), 2048 + 131072 + 2048);
  EXPECT_EQ(LargestTensorBytes(graph), 131072);
}

}  // namespace
}  // namespace mmapzero::synthetic
