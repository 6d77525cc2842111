#include "common/model/support_scaling.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace mmapzero::model {
namespace {

TEST(SupportScalingTest, ScaleOfZeroIsZero) {
  EXPECT_EQ(ScaleValue(0.0), 0.0);
  EXPECT_NEAR(UnscaleValue(0.0), 0.0, 1e-12);
}

TEST(SupportScalingTest, ScaleHandValues) {
  // h(3) = sqrt(4) - 1 + 0.003; h(-8) = -(3 - 1) - 0.008.
  EXPECT_NEAR(ScaleValue(3.0), 1.003, 1e-12);
  EXPECT_NEAR(ScaleValue(-8.0), -2.008, 1e-12);
}

TEST(SupportScalingTest, UnscaleInvertsScale) {
  for (double x : {-1e4, -300.0, -2.5, -1e-3, 0.0, 1e-3, 0.7, 42.0, 1e5}) {
    EXPECT_NEAR(UnscaleValue(ScaleValue(x)), x, 1e-6 * (1 + std::abs(x))) << x;
  }
}

TEST(SupportScalingTest, TwoHotSplitsBetweenNeighbours) {
  const std::vector<float> two_hot = TwoHot(2.3, 5);
  ASSERT_EQ(two_hot.size(), 11u);
  EXPECT_NEAR(two_hot[5 + 2], 0.7f, 1e-6);
  EXPECT_NEAR(two_hot[5 + 3], 0.3f, 1e-6);
  float total = 0;
  for (float p : two_hot) total += p;
  EXPECT_NEAR(total, 1.0f, 1e-6);
  EXPECT_NEAR(SupportMean(two_hot), 2.3, 1e-6);
}

TEST(SupportScalingTest, TwoHotOfNegativeAndEdges) {
  const std::vector<float> negative = TwoHot(-1.25, 3);
  EXPECT_NEAR(negative[3 - 2], 0.25f, 1e-6);
  EXPECT_NEAR(negative[3 - 1], 0.75f, 1e-6);
  const std::vector<float> top = TwoHot(3.0, 3);
  EXPECT_EQ(top[6], 1.0f);
  const std::vector<float> clamped = TwoHot(-100.0, 3);
  EXPECT_EQ(clamped[0], 1.0f);
}

TEST(SupportScalingTest, LogitsOfTargetDecodeBack) {
  // log of a two-hot target is a logit vector whose softmax is the target.
  const double x = 17.5;
  std::vector<float> logits;
  for (float p : ScalarToSupport(x, 20)) {
    logits.push_back(p > 0 ? std::log(p) : -1e30f);
  }
  EXPECT_NEAR(SupportToScalar(logits), x, 1e-3);
}

}  // namespace
}  // namespace mmapzero::model
