// Evaluates a batch of candidates on a fixed set of threads: Run(count, task)
// calls task(index, worker) once for every index in [0, count) and returns
// when all are done. The calling thread is worker 0 and works too; threads
// - 1 helper threads (std::jthread, owned and joined by the evaluator) are
// worker 1 .. threads - 1. Indices are handed out one at a time from an
// atomic counter, so a slow candidate does not hold up the others.
//
// Which worker evaluates which index varies from run to run. Callers keep
// results independent of it: a task derives its randomness from its index
// (never from the worker) and stores its result at its index; the worker
// number only selects per-thread scratch state (a decoder, a game).
//
// Thread-safety: Run() is called by one thread at a time (the owner).
#ifndef MMAPZERO_COMMON_SOLVERS_PARALLEL_EVALUATOR_H_
#define MMAPZERO_COMMON_SOLVERS_PARALLEL_EVALUATOR_H_

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/synchronization/mutex.h"

namespace mmapzero::solvers {

class ParallelEvaluator {
 public:
  using Task = absl::FunctionRef<void(int64_t index, int worker)>;

  // `threads` >= 1 workers, the caller included.
  explicit ParallelEvaluator(int threads);
  ~ParallelEvaluator();
  ParallelEvaluator(const ParallelEvaluator&) = delete;
  ParallelEvaluator& operator=(const ParallelEvaluator&) = delete;

  int threads() const { return static_cast<int>(helpers_.size()) + 1; }

  // task(i, worker) for every i in [0, count); blocks until all are done.
  void Run(int64_t count, Task task) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Batch {
    const Task* task = nullptr;
    int64_t count = 0;
  };
  void HelperLoop(int worker) ABSL_LOCKS_EXCLUDED(mu_);
  // Takes indices of `batch` until none are left.
  void Work(const Batch& batch, int worker);

  absl::Mutex mu_;
  Batch batch_ ABSL_GUARDED_BY(mu_);
  uint64_t batch_number_ ABSL_GUARDED_BY(mu_) = 0;  // batches started
  int busy_helpers_ ABSL_GUARDED_BY(mu_) = 0;  // helpers in the current batch
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::atomic<int64_t> next_index_{0};
  std::vector<std::jthread> helpers_;  // last member: joined first
};

}  // namespace mmapzero::solvers

#endif  // MMAPZERO_COMMON_SOLVERS_PARALLEL_EVALUATOR_H_
