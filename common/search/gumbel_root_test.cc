#include "common/search/gumbel_root.h"

#include <vector>

#include "gtest/gtest.h"

namespace mmapzero::search {
namespace {

// mctx's schedule for m = 3, n = 4: one visit each, then the best two
// (halving 3 -> 2): 0, 0, 0, 1.
TEST(ConsideredVisitSequenceTest, MatchesMctxForThreeActions) {
  EXPECT_EQ(ConsideredVisitSequence(3, 4), (std::vector<int32_t>{0, 0, 0, 1}));
  EXPECT_EQ(ConsideredVisitSequence(2, 5),
            (std::vector<int32_t>{0, 0, 1, 1, 2}));
  EXPECT_EQ(ConsideredVisitSequence(1, 3), (std::vector<int32_t>{0, 1, 2}));
}

TEST(GumbelRootTest, ConsidersOnlyLegalActions) {
  SearchTree tree;
  const int32_t root = tree.AddNode(1);
  std::vector<float> hidden;
  tree.Expand(root, {0, 0, 0}, 0b011, &hidden);
  SearchRng rng(5);
  GumbelRoot gumbel;
  gumbel.Begin({0, 0, 0}, 0b011, 3, 4, 0.0, &rng);
  EXPECT_EQ(gumbel.considered_mask(), 0b011);
  const auto policy = gumbel.ImprovedPolicy(tree, 1.0);
  EXPECT_DOUBLE_EQ(policy[2], 0.0);
  EXPECT_NEAR(policy[0] + policy[1], 1.0, 1e-12);
}

}  // namespace
}  // namespace mmapzero::search
