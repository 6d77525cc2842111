#include "common/solvers/parallel_evaluator.h"

#include <atomic>
#include <vector>

#include "gtest/gtest.h"

namespace mmapzero::solvers {
namespace {

TEST(ParallelEvaluatorTest, RunsEveryIndexOnceInEveryBatch) {
  ParallelEvaluator pool(2);
  EXPECT_EQ(pool.threads(), 2);
  for (int64_t count : {0, 1, 2, 7, 100, 3}) {
    std::vector<std::atomic<int>> hits(count);
    std::atomic<int> bad_worker{0};
    pool.Run(count, [&](int64_t i, int worker) {
      hits[i].fetch_add(1);
      if (worker < 0 || worker >= 2) bad_worker.fetch_add(1);
    });
    for (int64_t i = 0; i < count; ++i) EXPECT_EQ(hits[i].load(), 1) << i;
    EXPECT_EQ(bad_worker.load(), 0);
  }
}

TEST(ParallelEvaluatorTest, OneThreadRunsInOrderOnTheCaller) {
  ParallelEvaluator pool(1);
  std::vector<int64_t> order;
  pool.Run(5, [&](int64_t i, int worker) {
    EXPECT_EQ(worker, 0);
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

TEST(ParallelEvaluatorTest, DestroyedWhileIdleJoinsItsThreads) {
  for (int i = 0; i < 20; ++i) ParallelEvaluator pool(2);
}

}  // namespace
}  // namespace mmapzero::solvers
