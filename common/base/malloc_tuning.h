// Keeps memory that LibTorch frees for its next allocation instead of
// returning it to the kernel. glibc's malloc serves large blocks (above a
// threshold that starts at 128 KiB) with mmap and unmaps them when freed,
// and trims the heap's free top; a training or inference step allocates
// and frees the same large tensors every time, so each step faults in
// fresh zeroed pages (model_bench: 2-3.7 M page faults against 28 k
// without; a quarter of a cluster learner's cycles were in the kernel).
// Call once at the start of main, before any thread; the cost is that a
// process keeps up to its peak tensor memory.
#ifndef MMAPZERO_COMMON_BASE_MALLOC_TUNING_H_
#define MMAPZERO_COMMON_BASE_MALLOC_TUNING_H_

namespace mmapzero {

void KeepFreedMemoryForReuse();

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_BASE_MALLOC_TUNING_H_
