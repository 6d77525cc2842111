#include "common/validate/overlap_sweep.h"

#include <random>
#include <set>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace mmapzero::validate {
namespace {

using ::testing::IsEmpty;

bool Overlap(const Allocation& a, const Allocation& b) {
  return OverlapInTime(a, b.first_step, b.last_step) &&
         OverlapInBytes(a, b.offset, b.size) && !SharedByAliasGroup(a, b, {});
}

// Tensor 7 (no group) is kept at [0, 10) over [0, 2]; group 3, which has a
// buffer of tensor 7, writes tensor 8 in place at the same bytes from step
// 2: the group's allocation shares tensor 7's bytes. Another tensor's
// allocation at those bytes still overlaps.
TEST(OverlapSweepTest, GroupMayShareTheBytesOfItsMemberTensors) {
  Allocation kept{0, 0, 2, 0, 10, -1, 7};
  Allocation in_place{1, 2, 4, 0, 10, 3, 8};
  const AliasTensors tensors = {{3, 7}, {3, 8}};
  EXPECT_THAT(FindOverlaps({kept, in_place}, tensors), IsEmpty());
  EXPECT_EQ(FindOverlaps({kept, in_place}).size(), 1u);
  Allocation other{2, 0, 2, 0, 10, -1, 9};
  EXPECT_EQ(FindOverlaps({other, in_place}, tensors).size(), 1u);
}

TEST(OverlapSweepTest, AdjacentInTimeOrBytesDoNotOverlap) {
  const std::vector<Allocation> allocations = {
      {0, 0, 2, 0, 10, -1},   // steps [0,2] x [0,10)
      {1, 3, 5, 0, 10, -1},   // starts the step after 0 ends
      {2, 0, 5, 10, 10, -1},  // the bytes right after
  };
  EXPECT_THAT(FindOverlaps(allocations), IsEmpty());
}

TEST(OverlapSweepTest, ReportsTheLaterEnteringOfAnOverlappingPair) {
  const std::vector<Allocation> allocations = {
      {0, 2, 4, 0, 10, -1},
      {1, 0, 2, 5, 10, -1},  // enters first; shares step 2, bytes [5, 10)
  };
  const std::vector<AllocationOverlap> overlaps = FindOverlaps(allocations);
  ASSERT_EQ(overlaps.size(), 1u);
  EXPECT_EQ(overlaps[0].index, 0);
  EXPECT_EQ(overlaps[0].other_index, 1);
}

TEST(OverlapSweepTest, AliasGroupMayShareItsBytes) {
  std::vector<Allocation> allocations = {
      {0, 0, 1, 0, 10, 7},
      {1, 1, 2, 0, 10, 7},
  };
  EXPECT_THAT(FindOverlaps(allocations), IsEmpty());
  allocations[1].offset = 5;  // same group, other bytes
  EXPECT_EQ(FindOverlaps(allocations).size(), 1u);
}

// Property: an allocation is reported exactly when it overlaps some
// allocation that enters the sweep before it, and what it is reported
// against does overlap it.
TEST(OverlapSweepTest, AgreesWithPairwiseCheckOnRandomRectangles) {
  std::mt19937 random(12345);
  for (int round = 0; round < 200; ++round) {
    std::vector<Allocation> allocations;
    const int count = 1 + static_cast<int>(random() % 40);
    for (int i = 0; i < count; ++i) {
      const int first = static_cast<int>(random() % 20);
      const int64_t offset = static_cast<int64_t>(random() % 8) * 8;
      allocations.push_back({i, first, first + static_cast<int>(random() % 5),
                             offset,
                             8 * (1 + static_cast<int64_t>(random() % 3)),
                             random() % 4 == 0 ? 1 : -1});
    }
    std::set<int> expected;
    for (int i = 0; i < count; ++i) {
      for (int j = 0; j < count; ++j) {
        const bool j_enters_first =
            allocations[j].first_step < allocations[i].first_step ||
            (allocations[j].first_step == allocations[i].first_step && j < i);
        if (j_enters_first && Overlap(allocations[i], allocations[j])) {
          expected.insert(i);
        }
      }
    }
    std::set<int> reported;
    for (const AllocationOverlap& overlap : FindOverlaps(allocations)) {
      reported.insert(overlap.index);
      EXPECT_TRUE(Overlap(allocations[overlap.index],
                          allocations[overlap.other_index]));
    }
    EXPECT_EQ(reported, expected) << "round " << round;
  }
}

}  // namespace
}  // namespace mmapzero::validate
