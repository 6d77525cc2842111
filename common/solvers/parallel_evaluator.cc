#include "common/solvers/parallel_evaluator.h"

#include <algorithm>

namespace mmapzero::solvers {

ParallelEvaluator::ParallelEvaluator(int threads) {
  for (int worker = 1; worker < std::max(threads, 1); ++worker) {
    helpers_.emplace_back([this, worker] { HelperLoop(worker); });
  }
}

ParallelEvaluator::~ParallelEvaluator() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  helpers_.clear();  // joins
}

void ParallelEvaluator::Work(const Batch& batch, int worker) {
  for (int64_t i = next_index_.fetch_add(1, std::memory_order_relaxed);
       i < batch.count;
       i = next_index_.fetch_add(1, std::memory_order_relaxed)) {
    (*batch.task)(i, worker);
  }
}

void ParallelEvaluator::Run(int64_t count, Task task) {
  if (count <= 0) return;
  const Batch batch{&task, count};
  if (helpers_.empty() || count == 1) {
    for (int64_t i = 0; i < count; ++i) task(i, 0);
    return;
  }
  next_index_.store(0, std::memory_order_relaxed);
  {
    absl::MutexLock lock(&mu_);
    batch_ = batch;
    busy_helpers_ = static_cast<int>(helpers_.size());
    ++batch_number_;
  }
  Work(batch, 0);
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](int* busy) { return *busy == 0; }, &busy_helpers_));
  batch_ = Batch{};
}

void ParallelEvaluator::HelperLoop(int worker) {
  uint64_t seen = 0;
  while (true) {
    Batch batch;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this, &seen]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || batch_number_ != seen;
      };
      mu_.Await(absl::Condition(&ready));
      if (stopping_) return;
      seen = batch_number_;
      batch = batch_;
    }
    Work(batch, worker);
    absl::MutexLock lock(&mu_);
    --busy_helpers_;
  }
}

}  // namespace mmapzero::solvers
