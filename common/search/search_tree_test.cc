#include "common/search/search_tree.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace mmapzero::search {
namespace {

TEST(SearchTreeTest, ExpandGivesMaskedSoftmaxPriors) {
  SearchTree tree;
  const int32_t root = tree.AddNode(1);
  std::vector<float> hidden = {1, 2};
  tree.Expand(root, {0.0f, 5.0f, 0.0f}, 0b101, &hidden);  // NoCopy illegal
  const Node& r = tree.node(root);
  EXPECT_TRUE(r.expanded);
  EXPECT_EQ(r.children[1], kNoNode);
  EXPECT_FLOAT_EQ(tree.node(r.children[0]).prior, 0.5f);
  EXPECT_FLOAT_EQ(tree.node(r.children[2]).prior, 0.5f);
  EXPECT_EQ(tree.hidden(r.hidden), (std::vector<float>{1, 2}));
}

// root -> child (reward 1), leaf value 2, discount 0.5: the child sums 2,
// the root 1 + 0.5 * 2 = 2.
TEST(SearchTreeTest, BackupDiscountsAndAddsRewards) {
  SearchTree tree;
  const int32_t root = tree.AddNode(1);
  std::vector<float> hidden;
  tree.Expand(root, {0, 0, 0}, kAllActions, &hidden);
  const int32_t child = tree.node(root).children[0];
  tree.node(child).reward = 1;
  const std::vector<int32_t> path = {root, child};
  tree.Backup(path, 2.0, 0.5);
  EXPECT_DOUBLE_EQ(tree.node(child).value_sum, 2.0);
  EXPECT_DOUBLE_EQ(tree.node(root).value_sum, 2.0);
  EXPECT_EQ(tree.node(root).visits, 1);
  EXPECT_EQ(tree.node(child).visits, 1);
}

// Parent with 1 visit, unvisited child with prior 0.5:
// (log((1 + 19652 + 1) / 19652) + 1.25) * sqrt(1) / 1 * 0.5.
TEST(SearchTreeTest, PuctScoreOfUnvisitedChildIsPriorTerm) {
  Node parent, child;
  parent.visits = 1;
  child.prior = 0.5f;
  const double expected = (std::log(19654.0 / 19652.0) + 1.25) * 0.5;
  EXPECT_DOUBLE_EQ(PuctScore(parent, child, MinMaxStats(), PuctParams()),
                   expected);
}

TEST(MinMaxStatsTest, NormalisesIntoUnitInterval) {
  MinMaxStats stats;
  EXPECT_DOUBLE_EQ(stats.Normalize(3), 3);  // no bounds yet: unchanged
  stats.Update(2);
  stats.Update(6);
  EXPECT_DOUBLE_EQ(stats.Normalize(3), 0.25);
}

TEST(SearchTreeTest, ClearKeepsNothingVisible) {
  SearchTree tree;
  tree.AddNode(1);
  tree.Clear();
  EXPECT_EQ(tree.size(), 0);
}

}  // namespace
}  // namespace mmapzero::search
