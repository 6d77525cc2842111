#include "common/base/malloc_tuning.h"

#include <malloc.h>

namespace mmapzero {

void KeepFreedMemoryForReuse() {
  // mmap only for blocks of 32 MiB and more (glibc's largest threshold),
  // and trim a heap only when 1 GiB at its top is free.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

}  // namespace mmapzero
