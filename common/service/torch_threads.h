// The --torch-threads setting of the services that run networks (learner,
// actor, reanalyse): LibTorch's intra-op threads per network call, 0 for
// LibTorch's own default (one per core). Each service defaults to 1: its
// parallelism comes from jobs and processes, and OpenMP barriers stall
// when another process holds a core (docs/agent.md).
#ifndef MMAPZERO_COMMON_SERVICE_TORCH_THREADS_H_
#define MMAPZERO_COMMON_SERVICE_TORCH_THREADS_H_

#include "absl/status/statusor.h"

namespace mmapzero::service {

// `threads` when in 0..1024; InvalidArgument naming --torch-threads.
absl::StatusOr<int> TorchThreadsFromConfig(int threads);

}  // namespace mmapzero::service

#endif  // MMAPZERO_COMMON_SERVICE_TORCH_THREADS_H_
