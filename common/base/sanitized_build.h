// Whether this build runs under a sanitizer whose allocator stands in for
// glibc's malloc (AddressSanitizer, ThreadSanitizer, MemorySanitizer):
// tests of malloc's own behaviour (arenas, trimming, mallinfo) skip there.
#ifndef MMAPZERO_COMMON_BASE_SANITIZED_BUILD_H_
#define MMAPZERO_COMMON_BASE_SANITIZED_BUILD_H_

#include "absl/base/config.h"

namespace mmapzero {

#if defined(ABSL_HAVE_ADDRESS_SANITIZER) || \
    defined(ABSL_HAVE_THREAD_SANITIZER) || defined(ABSL_HAVE_MEMORY_SANITIZER)
inline constexpr bool kSanitizerReplacesMalloc = true;
#else
inline constexpr bool kSanitizerReplacesMalloc = false;
#endif

}  // namespace mmapzero

#endif  // MMAPZERO_COMMON_BASE_SANITIZED_BUILD_H_
