// How many threads one LibTorch caller computes with. Debian's LibTorch does
// its matrix products in OpenBLAS (the pthreads build, libopenblas0-pthread),
// which keeps a thread pool of its own that torch::set_num_threads does not
// reach: with one torch thread, a 128-sample MLP inference still woke
// OpenBLAS's workers, whose idle loop spins in sched_yield. A perf profile
// of one self-play thread on the 2-core machine put 40% of its cycles in
// sched_yield; limiting OpenBLAS as well took policy-only self-play from
// 30k to 80k moves/s (bench/self_play_bench, docs/benchmarks.md).
// The OpenBLAS call is looked up at run time, so a LibTorch built on another
// BLAS (MKL, a CUDA build) is unaffected.
#ifndef MMAPZERO_COMMON_MODEL_COMPUTE_THREADS_H_
#define MMAPZERO_COMMON_MODEL_COMPUTE_THREADS_H_

namespace mmapzero::model {

// torch::set_num_threads(threads), and the same limit for OpenBLAS's pool
// when the process has OpenBLAS. Process-wide. 0 (the services'
// --torch-threads 0) changes nothing: LibTorch's and OpenBLAS's own
// defaults, one thread per core.
void SetComputeThreads(int threads);

}  // namespace mmapzero::model

#endif  // MMAPZERO_COMMON_MODEL_COMPUTE_THREADS_H_
